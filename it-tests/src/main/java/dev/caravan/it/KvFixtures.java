package dev.caravan.it;

import java.net.http.HttpResponse;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.caravan.policies.kv.BlockKeys;
import dev.caravan.policies.kv.KvBlockIndex;
import dev.caravan.policies.text.PseudoTokenizer;
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
}
