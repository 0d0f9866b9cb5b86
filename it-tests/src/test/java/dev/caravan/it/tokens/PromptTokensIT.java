package dev.caravan.it.tokens;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.caravan.it.GatewayClient;
import dev.caravan.it.GatewayHarness;
import dev.caravan.it.KvFixtures;
import dev.caravan.policies.kv.BlockKeys;
import dev.caravan.policies.kv.KvBlockIndex;
import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.forward.ForwardStreamProcessor;
import dev.caravan.tokens.EngineDialect;
import dev.caravan.tokens.LocalModel;
import dev.caravan.tokens.ModelFiles;
import dev.caravan.processors.tokens.TokensFeature;
import dev.caravan.sim.SimConfig;
import dev.caravan.sim.SimEngine;
import dev.caravan.sim.SimFleet;

/**
 * The engine's own tokens on a real open model: simulated engines load Mistral NeMo Instruct's tokenizer.json and chat
 * template ({@code --tokenizer}, rendered and tokenized by the simulator's own code), the kv_aware gateway gets the
 * same model directory ({@code --model-path}). For a multi-turn chat with a tool, the gateway's prompt tokens equal the
 * engine's {@code /tokenize} ids (one BOS: the template emits it, the tokenizer would add another), the gateway's
 * tokenizer check finds every engine in agreement, and the chat is routed to the engine holding its blocks, with them
 * cached. (Qwen3's template, proven by the vectors, is not used here: the simulator's own Jinja set-up does not render
 * it yet.)
 */
class PromptTokensIT {

    private static final Duration WAIT = Duration.ofSeconds(20);
    /** Mistral NeMo's fixture in the processors module (tokenizer.json, tokenizer_config.json; models/README.md). */
    private static final Path NEMO = Path.of("../models/mistral_nemo").toAbsolutePath()
            .normalize();
    /** Mistral NeMo's {@code <s>}. */
    private static final int BOS = 1;

    private static SimFleet fleet;
    private static GatewayHarness gateway;
    private static KvBlockIndex index;
    private static LocalModel local;
    private static final List<String> ids = new ArrayList<>();

    @BeforeAll
    static void start() throws IOException {
        System.setProperty("ENGINE_CACHE_DIR", Path.of("target/djl-cache").toAbsolutePath().toString());
        fleet = SimFleet.start(2, KvFixtures.publishing(SimConfig.builder()).tokenizer(NEMO).build());
        gateway = GatewayHarness.start(GatewayHarness.config(List.of()).with(CoreFlags.DECISION_HEADERS, "true")
                .with(CoreFlags.POLICY_NAME, "kv_aware")
                .with(TokensFeature.MODEL_PATH, NEMO.toString()));
        index = gateway.gateway().beans().kv().index();
        local = LocalModel.load(new ModelFiles("mistral_nemo", NEMO, null, null), null, EngineDialect.VLLM,
                Clock.systemUTC());
        for (SimEngine e : fleet.engines()) {
            ids.add(KvFixtures.register(gateway.client(), e, e.config().model()));
        }
        for (int i = 0; i < ids.size(); i++) {
            KvFixtures.awaitIndexed(gateway, fleet.engine(i), ids.get(i), 8, WAIT);
        }
    }

    @AfterAll
    static void stop() {
        if (local != null) {
            local.close();
        }
        if (gateway != null) {
            gateway.close();
        }
        if (fleet != null) {
            fleet.close();
        }
    }

    private static Map<String, Object> chat(String model) {
        // the function's fields in the order vLLM's request model declares them (its template iterates them)
        Map<String, Object> function = new LinkedHashMap<>();
        function.put("name", "get_weather");
        function.put("description", "Weather for a city");
        function.put("parameters", Map.of("type", "object", "properties", Map.of("city", Map.of("type", "string")),
                "required", List.of("city")));
        Map<String, Object> tool = Map.of("type", "function", "function", function);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("model", model);
        body.put("messages", List.of(
                Map.of("role", "system", "content", "You plan caravan routes across the desert. Answer briefly."),
                Map.of("role", "user", "content", "Which oases lie between the coast and the mountains?"),
                Map.of("role", "assistant", "content", "Three: Ain Salah, Tamanrasset and Djanet."),
                Map.of("role", "user", "content", "And how many days does the crossing take with loaded camels in "
                        + "the hot season, resting at each of them?")));
        body.put("tools", List.of(tool));
        body.put("max_tokens", 2);
        return body;
    }

    private static int[] gatewayTokens(Map<String, Object> body) throws IOException {
        // through JSON text, as the gateway parses a request
        Map<String, Object> parsed = new ObjectMapper().readValue(GatewayClient.json(body), new TypeReference<>() {
        });
        return local.chat(parsed);
    }

    @Test
    void theGatewaysChatTokensAreTheEnginesAndItsCheckAgrees() throws IOException {
        SimEngine engine = fleet.engine(0);
        Map<String, Object> body = chat(engine.config().model());
        int[] ours = gatewayTokens(body);
        HttpResponse<String> tokenized = new GatewayClient(engine.url()).postJson("/tokenize",
                GatewayClient.json(body));
        assertThat(tokenized.statusCode()).as(tokenized.body()).isEqualTo(200);
        JsonNode theirs = GatewayClient.parse(tokenized.body()).path("tokens");
        assertThat(ours[0]).isEqualTo(BOS);
        assertThat(ours).containsOnlyOnce(BOS);
        assertThat(theirs).hasSize(ours.length);
        for (int i = 0; i < ours.length; i++) {
            assertThat(theirs.get(i).asInt()).as("token %d", i).isEqualTo(ours[i]);
        }
        for (SimEngine e : fleet.engines()) {
            await().atMost(WAIT).until(() -> gateway.client().get("/metrics").body().lines().anyMatch(l ->
                    l.startsWith("caravan_prompt_tokens_engine_agreement{") && l.contains(e.url())
                            && l.endsWith(" 1.0")));
        }
    }

    @Test
    void routesAChatToTheEngineHoldingItsBlocks() throws IOException {
        SimEngine holder = fleet.engine(1);
        String served = holder.config().model();
        Map<String, Object> body = chat(served);
        int[] tokens = gatewayTokens(body);
        long[] hashes = BlockKeys.keys(tokens, 16, BlockKeys.PLAIN_ROOT);
        assertThat(hashes.length).isGreaterThanOrEqualTo(3);
        HttpResponse<String> direct = new GatewayClient(holder.url()).postJson("/v1/chat/completions",
                GatewayClient.json(body));
        assertThat(direct.statusCode()).isEqualTo(200);
        await().atMost(WAIT).until(() -> index.longestPrefixes(hashes, 1, 1).matched(ids.get(1)) == hashes.length);

        HttpResponse<String> routed = gateway.client().postJson("/v1/chat/completions", GatewayClient.json(body));
        assertThat(routed.statusCode()).isEqualTo(200);
        assertThat(routed.headers().firstValue(ForwardStreamProcessor.WORKER_HEADER)).hasValue(holder.url());
        assertThat(routed.headers().firstValue(ForwardStreamProcessor.DECISION_HEADER)).hasValue("kv_aware:kv_hit");
        int cacheable = Math.min(hashes.length, (tokens.length - 1) / 16) * 16;
        assertThat(GatewayClient.parse(routed.body()).path("usage").path("prompt_tokens_details")
                .path("cached_tokens").asInt()).isEqualTo(cacheable);
    }
}
