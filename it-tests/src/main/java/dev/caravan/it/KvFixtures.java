package dev.caravan.it;

import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import org.awaitility.core.ConditionTimeoutException;

import dev.caravan.policies.kv.BlockKeys;
import dev.caravan.policies.kv.KvBlockIndex;
import dev.caravan.policies.text.PseudoTokenizer;
import dev.caravan.processors.kv.KvWorkerStats;
import dev.caravan.sim.SimConfig;
import dev.caravan.sim.SimEngine;

/**
 * Helpers for the KV-event integration tests: simulated engines that publish KV events on ephemeral loopback ports,
 * their registration with the gateway ({@code POST /workers} with {@code kv_events_endpoint}/{@code kv_replay_endpoint}),
 * prompts of an exact number of blocks and the gateway's block keys for them ({@link MetricsText} reads their metrics).
 */
public final class KvFixtures {

    /** A ZeroMQ endpoint bound on a free loopback port. */
    public static final String EPHEMERAL = "tcp://127.0.0.1:*";
    /** The engines' defaults: 16-token blocks of 4-character synthetic tokens. */
    public static final int BLOCK_CHARS = SimConfig.DEFAULT_BLOCK_SIZE * SimConfig.DEFAULT_CHARS_PER_TOKEN;

    private static final PseudoTokenizer TOKENIZER = new PseudoTokenizer();

    private KvFixtures() {
    }

    /**
     * Engines that publish KV events and answer replays, quick enough for tests. They hash blocks as a stock vLLM
     * does (the simulator's default: {@code sha256} with a random root per engine): the gateway keys blocks by their
     * token ids, whatever the engines' ids.
     */
    public static SimConfig.Builder publishing(SimConfig.Builder b) {
        return b.kvEventsEndpoint(EPHEMERAL).kvReplayEndpoint(EPHEMERAL).timeScale(10).defaultMaxTokens(2);
    }

    /**
     * A prompt of exactly {@code blocks} full blocks that starts with {@code tag}, so prompts of different tags share no
     * block (and, when the tags differ in their first character, not a single character).
     */
    public static String prompt(String tag, int blocks) {
        StringBuilder sb = new StringBuilder();
        int i = 0;
        while (sb.length() < blocks * BLOCK_CHARS) {
            sb.append(tag).append(':').append(i++).append(' ');
        }
        return sb.substring(0, blocks * BLOCK_CHARS);
    }

    /** The gateway's block keys of this completion prompt (pseudo tokens, 16-token blocks, no adapter or salt). */
    public static long[] keys(String prompt) {
        return BlockKeys.keys(TOKENIZER.encode(prompt), SimConfig.DEFAULT_BLOCK_SIZE, BlockKeys.PLAIN_ROOT);
    }

    /** Leading blocks of {@code prompt} the worker holds according to the gateway's index. */
    public static int matched(KvBlockIndex index, String workerId, String prompt) {
        return index.longestPrefixes(keys(prompt), 1, 1).matched(workerId);
    }

    /** Registers an engine through the admin API with its KV-event endpoints; returns the worker id. */
    public static String register(GatewayClient gateway, SimEngine engine, String model) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("url", engine.url());
        body.put("model_id", model);
        body.put("kv_events_endpoint", engine.kvEventsEndpoint());
        body.put("kv_replay_endpoint", engine.kvReplayEndpoint());
        HttpResponse<String> r = gateway.postJson("/workers", GatewayClient.json(body));
        if (r.statusCode() != 202) {
            throw new IllegalStateException("POST /workers answered " + r.statusCode() + ": " + r.body());
        }
        return GatewayClient.parse(r.body()).path("worker_id").asText();
    }

    /** A completion sent to {@code base} (an engine, or the gateway); fails unless it answers 200. */
    public static HttpResponse<String> complete(String base, String model, String prompt) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("model", model);
        body.put("prompt", prompt);
        body.put("max_tokens", 2);
        HttpResponse<String> r = new GatewayClient(base).postJson("/v1/completions", GatewayClient.json(body));
        if (r.statusCode() != 200) {
            throw new IllegalStateException(base + " answered " + r.statusCode() + ": " + r.body());
        }
        return r;
    }

    /**
     * Waits until {@code gateway} has indexed a block of {@code engine}'s (registered as {@code workerId}): sends the
     * engine a completion of a new {@code blocks}-block prompt every 100 ms until one of its blocks is in the gateway's
     * index. Needed before a test counts on the KV-event subscription: a SUB socket misses what the engine published
     * before the subscription was up (ZeroMQ's slow joiner).
     *
     * @throws AssertionError after {@code wait}, naming the engine, the probes sent and what the gateway's ingestor saw
     */
    public static void awaitIndexed(GatewayHarness gateway, SimEngine engine, String workerId, int blocks,
            Duration wait) {
        KvBlockIndex index = gateway.gateway().beans().kv().index();
        String model = engine.config().model();
        int[] probes = {0};
        try {
            await().atMost(wait).pollInterval(Duration.ofMillis(100)).until(() -> {
                complete(engine.url(), model, prompt("probe-" + workerId + "-" + probes[0]++, blocks));
                return index.residentBlocks(workerId) > 0;
            });
        } catch (ConditionTimeoutException e) {
            KvWorkerStats st = gateway.gateway().beans().kv().ingestor().stats(workerId);
            throw new AssertionError("no block of " + engine.url() + " (" + workerId + ") indexed after " + probes[0]
                    + " probes; KV routes " + gateway.gateway().beans().kv().routes().routeIds() + "; "
                    + (st == null ? "worker unknown to the ingestor" : "batches " + st.batches() + ", stored "
                    + st.blockStoredEvents() + ", decode errors " + st.decodeErrors() + ", orphans "
                    + st.orphanBlocks() + ", gaps " + st.gaps() + ", skipped " + st.skippedEvents()), e);
        }
    }
}
