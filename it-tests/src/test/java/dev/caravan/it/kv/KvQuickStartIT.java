package dev.caravan.it.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.caravan.it.GatewayClient;
import dev.caravan.it.GatewayHarness;
import dev.caravan.it.KvFixtures;
import dev.caravan.policies.Worker;
import dev.caravan.policies.kv.BlockKeys;
import dev.caravan.policies.kv.KvBlockIndex;
import dev.caravan.processors.config.ConfigResolver;
import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.forward.ForwardStreamProcessor;
import dev.caravan.processors.metrics.MetricsFeature;
import dev.caravan.sim.SimConfig;
import dev.caravan.sim.SimEngine;
import dev.caravan.sim.SimFleet;
import dev.caravan.tokens.EngineDialect;
import dev.caravan.tokens.LocalModel;
import dev.caravan.tokens.ModelFiles;

/**
 * The quick starts of docs/kv-events.md, run as written against simulated engines that render and tokenize chat with a
 * real model (Mistral NeMo Instruct's tokenizer.json and chat template, {@code sim --tokenizer models/mistral_nemo}; the
 * vLLM quick start again with Qwen3's files, {@code models/qwen3}, and engines that load them).
 * Each {@code ./caravan run} line is read from the page; only the addresses change: the engines are registered with
 * their ephemeral HTTP and KV-event endpoints (no model id, as {@code --worker-urls} registers them) in place of
 * {@code --worker-urls} and the endpoint templates, which need fixed ports. Multi-turn conversations are then sent
 * through the gateway one turn at a time, each after the engine's events for the turn before were indexed; a later
 * turn must go to the engine holding its conversation's blocks. Without {@code --model-path} the same command routes on
 * the engines' own {@code /tokenize} tokens; against SGLang engines without it, readiness names the model whose chat
 * requests cannot match.
 */
class KvQuickStartIT {

    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final Path REPOSITORY = Path.of("..").toAbsolutePath().normalize();
    private static final Path NEMO = REPOSITORY.resolve("models/mistral_nemo");
    private static final Path QWEN3 = REPOSITORY.resolve("models/qwen3");
    private static final int CONVERSATIONS = 12;
    private static final int TURNS = 5;
    private static final int BLOCK = 16;

    /** Engines and the test's own reading of their tokens, one pair per model. */
    private record Model(SimFleet fleet, LocalModel local) {
    }

    private static Model nemo;
    private static Model qwen3;

    @TempDir
    Path dir;

    @BeforeAll
    static void start() throws IOException {
        System.setProperty("ENGINE_CACHE_DIR", Path.of("target/djl-cache").toAbsolutePath().toString());
        nemo = model("mistral_nemo", NEMO);
        qwen3 = model("qwen3", QWEN3);
    }

    private static Model model(String name, Path files) throws IOException {
        SimFleet fleet = SimFleet.start(2, KvFixtures.publishing(SimConfig.builder()).tokenizer(files).build());
        return new Model(fleet, LocalModel.load(new ModelFiles(name, files, null, null), null, EngineDialect.VLLM,
                Clock.systemUTC()));
    }

    @AfterAll
    static void stop() {
        for (Model m : new Model[] {nemo, qwen3}) {
            if (m != null) {
                m.local().close();
                m.fleet().close();
            }
        }
    }

    @Test
    void theVllmQuickStartRoutesEveryLaterTurnToTheEngineHoldingItsConversation() throws IOException {
        List<String> args = quickStart("### Stock vLLM");
        assertThat(args).contains("--policy", "kv_aware", "--model-path", "models/mistral_nemo");

        Routed routed = converse(nemo, args, "local");

        assertFollowedOnTokensFrom(routed, "local", "engine");
    }

    @Test
    void withoutModelFilesTheVllmQuickStartRoutesOnTheEnginesOwnTokens() throws IOException {
        List<String> args = without(quickStart("### Stock vLLM"), "--model-path");

        Routed routed = converse(nemo, args, "engine");

        assertFollowedOnTokensFrom(routed, "engine", "local");
        assertThat(routed.unmatched()).isEmpty();
    }

    @Test
    void theVllmQuickStartWithQwen3sFilesRoutesEveryLaterTurnToTheEngineHoldingItsConversation() throws IOException {
        List<String> args = withModelPath(quickStart("### Stock vLLM"), "models/qwen3");

        Routed routed = converse(qwen3, args, "qwen3-local");

        assertFollowedOnTokensFrom(routed, "local", "engine");
    }

    @Test
    void withoutModelFilesTheVllmQuickStartRoutesQwen3ChatsOnTheEnginesOwnTokens() throws IOException {
        List<String> args = without(quickStart("### Stock vLLM"), "--model-path");

        Routed routed = converse(qwen3, args, "qwen3-engine");

        assertFollowedOnTokensFrom(routed, "engine", "local");
        assertThat(routed.unmatched()).isEmpty();
    }

    @Test
    void theSglangQuickStartRoutesEveryLaterTurnToTheEngineHoldingItsConversation() throws IOException {
        List<String> args = quickStart("### SGLang");
        assertThat(args).contains("--tokens-engine", "sglang", "--model-path", "models/mistral_nemo");

        Routed routed = converse(nemo, args, "sglang");

        assertThat(routed.followed()).isGreaterThanOrEqualTo(laterTurnsAt95Percent());
        assertThat(routed.tokens()).containsEntry("local", (double) CONVERSATIONS * TURNS);
    }

    @Test
    void withoutModelFilesAgainstSglangReadinessNamesTheModelWhoseChatsCannotMatch() throws IOException {
        try (GatewayHarness gateway = GatewayHarness.start(config(without(quickStart("### SGLang"),
                "--model-path")))) {
            register(nemo, gateway);
            JsonNode check = readinessCheck(gateway, "caravan-chat-tokens");
            assertThat(check.path("state").asText()).isEqualTo("UP");
            assertThat(check.path("message").asText())
                    .isEqualTo("chat requests of 1 model(s) will not match KV blocks: " + Worker.UNKNOWN_MODEL_ID);
            assertThat(check.path("unmatched_chat_models").asText()).isEqualTo(Worker.UNKNOWN_MODEL_ID
                    + ": no local model files (--model-path) and SGLang's /tokenize takes no chat messages "
                    + "(--tokens-engine sglang)");
        }
    }

    /** At least 95 % of later turns stayed with their holder, every prompt's tokens came from {@code source}. */
    private static void assertFollowedOnTokensFrom(Routed routed, String source, String other) {
        assertThat(routed.followed()).as("later turns on the engine holding the conversation")
                .isGreaterThanOrEqualTo(laterTurnsAt95Percent());
        assertThat(routed.tokens()).containsEntry(source, (double) CONVERSATIONS * TURNS).doesNotContainKey(other);
    }

    /** 95 % of the turns after each conversation's first, rounded up. */
    private static int laterTurnsAt95Percent() {
        return (int) Math.ceil(CONVERSATIONS * (TURNS - 1) * 0.95);
    }

    /** What a run of conversations gave: later turns that stayed with their holder, prompt tokens by source. */
    private record Routed(int followed, Map<String, Double> tokens, String unmatched) {
    }

    private Routed converse(Model model, List<String> args, String tag) throws IOException {
        try (GatewayHarness gateway = GatewayHarness.start(config(args))) {
            Map<String, String> ids = register(model, gateway);
            KvBlockIndex index = gateway.gateway().beans().kv().index();
            List<List<Map<String, Object>>> histories = new ArrayList<>();
            List<String> holders = new ArrayList<>();
            for (int c = 0; c < CONVERSATIONS; c++) {
                histories.add(new ArrayList<>());
                holders.add(null);
            }
            int followed = 0;
            for (int turn = 0; turn < TURNS; turn++) {
                for (int c = 0; c < CONVERSATIONS; c++) {
                    List<Map<String, Object>> messages = histories.get(c);
                    messages.add(Map.of("role", "user", "content", question(tag, c, turn)));
                    Map<String, Object> body = new LinkedHashMap<>();
                    body.put("model", model.fleet().engine(0).config().model());
                    body.put("messages", List.copyOf(messages));
                    body.put("max_tokens", 2);
                    HttpResponse<String> r = gateway.client().postJson("/v1/chat/completions",
                            GatewayClient.json(body));
                    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
                    String served = r.headers().firstValue(ForwardStreamProcessor.WORKER_HEADER).orElseThrow();
                    if (turn > 0 && served.equals(holders.get(c))) {
                        followed++;
                    }
                    holders.set(c, served);
                    awaitIndexed(model, index, ids.get(served), body);
                    messages.add(Map.of("role", "assistant", "content", "Noted, leg " + turn + " of route " + c
                            + " is planned."));
                }
            }
            String unmatched = readinessCheck(gateway, "caravan-chat-tokens").path("unmatched_chat_models")
                    .asText();
            return new Routed(followed, tokensBySource(gateway), unmatched);
        }
    }

    /** A turn's question: the first names the conversation, so no two conversations share more than the preamble. */
    private static String question(String tag, int conversation, int turn) {
        if (turn == 0) {
            return "Route " + tag + "-" + conversation + ": plan a caravan from the coast to oasis number "
                    + (conversation * 7 + 3) + " with " + (conversation + 4) + " camels, resting twice a day, "
                    + "avoiding the dunes in the south and the salt flats in the east.";
        }
        return "Leg " + turn + ": how much water do the camels of route " + conversation + " need, and where do we "
                + "camp after the " + turn + "th well?";
    }

    /** Waits until the engine's events for this prompt's full blocks are in the gateway's index. */
    private static void awaitIndexed(Model model, KvBlockIndex index, String workerId, Map<String, Object> body)
            throws IOException {
        Map<String, Object> parsed = GatewayClient.JSON.readValue(GatewayClient.json(body), new TypeReference<>() {
        });
        long[] keys = BlockKeys.keys(model.local().chat(parsed), BLOCK, BlockKeys.PLAIN_ROOT);
        await().atMost(WAIT).until(() -> index.longestPrefixes(keys, 1, 1).matched(workerId) == keys.length);
    }

    /** Registers both engines with their KV endpoints and no model id; returns worker id by URL, once indexed. */
    private static Map<String, String> register(Model model, GatewayHarness gateway) {
        Map<String, String> ids = new HashMap<>();
        for (SimEngine e : model.fleet().engines()) {
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("url", e.url());
            body.put("kv_events_endpoint", e.kvEventsEndpoint());
            body.put("kv_replay_endpoint", e.kvReplayEndpoint());
            HttpResponse<String> r = gateway.client().postJson("/workers", GatewayClient.json(body));
            assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
            ids.put(e.url(), GatewayClient.parse(r.body()).path("worker_id").asText());
        }
        for (SimEngine e : model.fleet().engines()) {
            KvFixtures.awaitIndexed(gateway, e, ids.get(e.url()), 8, WAIT);
        }
        return ids;
    }

    private static JsonNode readinessCheck(GatewayHarness gateway, String id) throws IOException {
        JsonNode body = GatewayClient.parse(gateway.client().get("/readiness").body());
        for (JsonNode check : body.path("checks")) {
            if (id.equals(check.path("id").asText())) {
                return check;
            }
        }
        throw new AssertionError("no check " + id + " in " + body);
    }

    private static Map<String, Double> tokensBySource(GatewayHarness gateway) {
        Map<String, Double> out = new HashMap<>();
        gateway.gateway().beans().meterRegistry().find("caravan_prompt_tokens_requests_total").counters()
                .forEach(c -> {
                    if (c.count() > 0) {
                        out.put(c.getId().getTag("source"), c.count());
                    }
                });
        return out;
    }

    /** The quick start's command line as the gateway parses it, listening on an ephemeral loopback port. */
    private GatewayConfig config(List<String> args) {
        List<String> absolute = args.stream().map(a -> a.startsWith("models/") ? REPOSITORY.resolve(a).toString() : a)
                .toList();
        return ConfigResolver.resolve(absolute.toArray(String[]::new), Map.of(), dir).config()
                .with(CoreFlags.HOST, "127.0.0.1").with(CoreFlags.PORT, "0")
                .with(MetricsFeature.PROMETHEUS_PORT, "0").with(CoreFlags.DECISION_HEADERS, "true");
    }

    /**
     * The arguments of the {@code ./caravan run} command under {@code heading} in docs/kv-events.md, without the
     * addresses: {@code --worker-urls} and the endpoint templates (and their values) are left out.
     */
    static List<String> quickStart(String heading) throws IOException {
        String page = Files.readString(REPOSITORY.resolve("docs/kv-events.md"));
        int at = page.indexOf("\n" + heading + "\n");
        assertThat(at).as("heading %s in docs/kv-events.md", heading).isPositive();
        String section = page.substring(at, page.indexOf("\n##", at + heading.length() + 2));
        int run = section.indexOf("./caravan run ");
        assertThat(run).as("a ./caravan run command under %s", heading).isPositive();
        StringBuilder command = new StringBuilder();
        for (String line : section.substring(run).split("\n")) {
            String l = line.strip();
            boolean more = l.endsWith("\\");
            command.append(more ? l.substring(0, l.length() - 1) : l).append(' ');
            if (!more) {
                break;
            }
        }
        List<String> words = words(command.toString());
        assertThat(words.subList(0, 2)).containsExactly("./caravan", "run");
        List<String> args = new ArrayList<>();
        boolean skipping = false;
        for (String w : words.subList(2, words.size())) {
            if (w.startsWith("--")) {
                skipping = w.equals("--worker-urls") || w.equals("--kv-events-endpoint-template")
                        || w.equals("--kv-replay-endpoint-template");
            }
            if (!skipping) {
                args.add(w);
            }
        }
        return args;
    }

    /** {@code args} with {@code --model-path}'s value replaced by {@code path}. */
    private static List<String> withModelPath(List<String> args, String path) {
        List<String> out = new ArrayList<>(args);
        int i = out.indexOf("--model-path");
        assertThat(i).as("--model-path in %s", args).isNotNegative();
        out.set(i + 1, path);
        return out;
    }

    /** {@code args} without {@code flag} and its value. */
    private static List<String> without(List<String> args, String flag) {
        List<String> out = new ArrayList<>(args);
        int i = out.indexOf(flag);
        assertThat(i).as("%s in %s", flag, args).isNotNegative();
        out.remove(i + 1);
        out.remove(i);
        return out;
    }

    /** Shell words: split on blanks, single quotes kept together. */
    private static List<String> words(String command) {
        List<String> out = new ArrayList<>();
        StringBuilder word = null;
        boolean quoted = false;
        for (char ch : command.toCharArray()) {
            if (ch == '\'') {
                quoted = !quoted;
                word = word == null ? new StringBuilder() : word;
            } else if (Character.isWhitespace(ch) && !quoted) {
                if (word != null) {
                    out.add(word.toString());
                    word = null;
                }
            } else {
                word = word == null ? new StringBuilder() : word;
                word.append(ch);
            }
        }
        if (word != null) {
            out.add(word.toString());
        }
        return out;
    }
}
