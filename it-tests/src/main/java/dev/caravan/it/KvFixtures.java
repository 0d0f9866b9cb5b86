package dev.caravan.it;

import java.net.http.HttpResponse;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.caravan.policies.kv.BlockHasher;
import dev.caravan.policies.text.PseudoTokenizer;
import dev.caravan.sim.SimConfig;
import dev.caravan.sim.SimEngine;
import dev.caravan.sim.hash.HashAlgo;

/**
 * Helpers for the KV-event integration tests: simulated engines that publish KV events on ephemeral loopback ports,
 * their registration with the gateway ({@code POST /workers} with {@code kv_events_endpoint}/{@code kv_replay_endpoint}),
 * prompts of an exact number of blocks and the block hashes the engines compute for them ({@link MetricsText} reads
 * their metrics).
 */
public final class KvFixtures {

    /** A ZeroMQ endpoint bound on a free loopback port. */
    public static final String EPHEMERAL = "tcp://127.0.0.1:*";
    /** The engines' defaults: 16-token blocks of 4-character synthetic tokens. */
    public static final int BLOCK_CHARS = SimConfig.DEFAULT_BLOCK_SIZE * SimConfig.DEFAULT_CHARS_PER_TOKEN;

    private static final PseudoTokenizer TOKENIZER = new PseudoTokenizer();
    private static final BlockHasher HASHER = new BlockHasher();

    private KvFixtures() {
    }

    /** The gateway's kv_aware default hash seed, which these engines are given as their PYTHONHASHSEED. */
    public static final String HASH_SEED = "0";

    /**
     * Engines that publish KV events and answer replays, quick enough for tests. They hash blocks with vLLM's
     * {@code sha256_cbor} and PYTHONHASHSEED {@value #HASH_SEED}, explicitly: the gateway's kv_aware still recomputes
     * the engines' hashes that way, while a stock engine (and the simulator's default) hashes {@code sha256} with a
     * random root. The simulator computes them with its own code, so {@link #hashes} (the gateway's code) checks it.
     */
    public static SimConfig.Builder publishing(SimConfig.Builder b) {
        return b.kvEventsEndpoint(EPHEMERAL).kvReplayEndpoint(EPHEMERAL).timeScale(10).defaultMaxTokens(2)
                .hashAlgo(HashAlgo.SHA256_CBOR).hashSeed(HASH_SEED);
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

    /** The block hashes an engine with default settings publishes for this completion prompt. */
    public static long[] hashes(String prompt) {
        return HASHER.hashes(TOKENIZER.encode(prompt));
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
