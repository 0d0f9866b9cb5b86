package dev.caravan.it.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.BooleanSupplier;
import java.util.function.ToLongFunction;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.zeromq.ZMQException;

import dev.caravan.it.GatewayClient;
import dev.caravan.it.GatewayHarness;
import dev.caravan.it.KvFixtures;
import dev.caravan.it.MetricsText;
import dev.caravan.it.RecordingEngine;
import dev.caravan.policies.kv.KvBlockIndex;
import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.forward.ForwardStreamProcessor;
import dev.caravan.processors.kv.KvFeature;
import dev.caravan.processors.kv.KvWorkerStats;
import dev.caravan.processors.tokens.TokensFeature;
import dev.caravan.sim.text.SyntheticTokenizer;

/**
 * kv_aware against engines that are nothing but vLLM's wire format: each worker is a {@link RecordingEngine} for HTTP
 * and a {@link VllmWirePublisher} (written in this module from the wire spec) announcing blocks under <em>random</em>
 * engine ids with their token ids. Token ids come from the simulator's tokenizer (the engine's code, not the
 * gateway's). Covers: routing to the holder whatever the ids (ints or bytes), a subscriber that joins after the
 * engine published (replay), data-parallel size 2 (every rank subscribed, the request pinned to the holding rank),
 * LoRA and {@code cache_salt} isolation, a sliding-window group's removal, the CPU tier, and a hybrid model's
 * engines scored by what every KV-cache group serves.
 */
class KvWireFormatIT {

    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final String MODEL = "base-model";
    private static final int BLOCK = 16;
    private static final SyntheticTokenizer ENGINE_TOKENIZER = new SyntheticTokenizer(4);

    private static GatewayHarness gateway;
    private static KvBlockIndex index;
    private final List<AutoCloseable> open = new ArrayList<>();
    private final SplittableRandom random = new SplittableRandom(7);

    @BeforeAll
    static void start() {
        gateway = GatewayHarness.start(GatewayHarness.config(List.of()).with(CoreFlags.DECISION_HEADERS, "true")
                .with(CoreFlags.POLICY_NAME, "kv_aware")
                .with(TokensFeature.TOKENS_SOURCE, "off") // the engines only answer completions, no /tokenize
                .with(KvFeature.KV_SILENCE_THRESHOLD_SECS, "0"));
        index = gateway.gateway().beans().kv().index();
    }

    @AfterAll
    static void stop() {
        gateway.close();
    }

    @AfterEach
    void closeEngines() throws Exception {
        for (AutoCloseable c : open) {
            c.close();
        }
    }

    /** One engine: HTTP stand-in plus its ranks' publishers, registered with the gateway. */
    private record Engine(String id, RecordingEngine http, List<VllmWirePublisher> ranks) {
        VllmWirePublisher rank(int r) {
            return ranks.get(r);
        }
    }

    private Engine engine(boolean bytesHashes) {
        VllmWirePublisher pub = new VllmWirePublisher("tcp://127.0.0.1:*", "tcp://127.0.0.1:*", 0, bytesHashes);
        open.add(pub);
        return register(List.of(pub), null);
    }

    /** An engine with {@code n} data-parallel ranks on consecutive ports, events at P+r, replay at P+n+r. */
    private Engine dataParallelEngine(int n) {
        for (int attempt = 0; ; attempt++) {
            int base = 20_000 + random.nextInt(40_000);
            List<VllmWirePublisher> ranks = new ArrayList<>();
            try {
                for (int r = 0; r < n; r++) {
                    ranks.add(new VllmWirePublisher("tcp://127.0.0.1:" + (base + r),
                            "tcp://127.0.0.1:" + (base + n + r), r, false));
                }
                open.addAll(ranks);
                return register(ranks, n);
            } catch (ZMQException e) {
                for (VllmWirePublisher p : ranks) {
                    try {
                        p.close();
                    } catch (InterruptedException ie) {
                        Thread.currentThread().interrupt();
                    }
                }
                if (attempt > 20) {
                    throw e;
                }
            }
        }
    }

    private Engine register(List<VllmWirePublisher> ranks, Integer dpSize) {
        RecordingEngine http = RecordingEngine.start().respond(200, "{\"choices\":[{\"text\":\"ok\"}]}");
        open.add(http);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("url", http.url());
        body.put("kv_events_endpoint", ranks.get(0).endpoint());
        body.put("kv_replay_endpoint", ranks.get(0).replayEndpoint());
        if (dpSize != null) {
            body.put("dp_size", dpSize);
        }
        HttpResponse<String> r = gateway.client().postJson("/workers", GatewayClient.json(body));
        assertThat(r.statusCode()).isEqualTo(202);
        String id = GatewayClient.parse(r.body()).path("worker_id").asText();
        open.add(0, () -> gateway.client().delete("/workers/" + id));
        return new Engine(id, http, ranks);
    }

    private static int[] tokens(String prompt) {
        return ENGINE_TOKENIZER.encode(prompt, true);
    }

    /** Random engine ids for {@code n} blocks: no relation to any hash the gateway could compute. */
    private long[] randomIds(int n) {
        long[] ids = new long[n];
        for (int i = 0; i < n; i++) {
            ids[i] = random.nextLong();
        }
        return ids;
    }

    /** A BlockStored of blocks [0, n) of the prompt's tokens under the given ids. */
    private static VllmWirePublisher.Stored stored(String prompt, long[] ids) {
        int[] t = Arrays.copyOf(tokens(prompt), ids.length * BLOCK);
        return VllmWirePublisher.Stored.gpu(ids, null, t, BLOCK);
    }

    /**
     * Publishes probe batches (no events) on every rank of the engine until {@code done} holds: the subscriber may
     * join late (slow joiner), and its first message makes it replay what it missed.
     */
    private static void until(Engine e, BooleanSupplier done) {
        await().atMost(WAIT).pollInterval(Duration.ofMillis(50)).until(() -> {
            if (done.getAsBoolean()) {
                return true;
            }
            for (VllmWirePublisher p : e.ranks()) {
                p.publish();
            }
            return false;
        });
    }

    /** The worker's KV stats, or null until its route registered it (the route manager works asynchronously). */
    private static KvWorkerStats stats(Engine e) {
        return gateway.gateway().beans().kv().ingestor().stats(e.id());
    }

    /** A stats count of the worker, 0 until its route registered it. */
    private static long count(Engine e, ToLongFunction<KvWorkerStats> what) {
        KvWorkerStats s = stats(e);
        return s == null ? 0 : what.applyAsLong(s);
    }

    private static HttpResponse<String> complete(String model, String prompt, String cacheSalt) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("model", model);
        body.put("prompt", prompt);
        body.put("max_tokens", 1);
        if (cacheSalt != null) {
            body.put("cache_salt", cacheSalt);
        }
        HttpResponse<String> r = gateway.client().postJson("/v1/completions", GatewayClient.json(body));
        assertThat(r.statusCode()).isEqualTo(200);
        return r;
    }

    private static String worker(HttpResponse<String> r) {
        return r.headers().firstValue(ForwardStreamProcessor.WORKER_HEADER).orElseThrow();
    }

    private static String decision(HttpResponse<String> r) {
        return r.headers().firstValue(ForwardStreamProcessor.DECISION_HEADER).orElseThrow();
    }

    @Test
    void routesToTheEngineThatAnnouncedTheBlocksWhateverItsIdsIntsOrBytes() {
        Engine ints = engine(false);
        Engine bytes = engine(true);
        Engine partial = engine(false);
        String prompt = KvFixtures.prompt("wire", 6);
        String other = KvFixtures.prompt("bytes", 4);
        ints.rank(0).publish(stored(prompt, randomIds(6)));
        partial.rank(0).publish(stored(prompt, randomIds(2)));
        bytes.rank(0).publish(stored(other, randomIds(4)));
        until(ints, () -> index.residentBlocks(ints.id()) == 6);
        until(partial, () -> index.residentBlocks(partial.id()) == 2);
        until(bytes, () -> index.residentBlocks(bytes.id()) == 4);

        HttpResponse<String> r = complete(MODEL, prompt, null);
        HttpResponse<String> s = complete(MODEL, other, null);

        assertThat(worker(r)).isEqualTo(ints.http().url());
        assertThat(decision(r)).isEqualTo("kv_aware:kv_hit");
        assertThat(worker(s)).isEqualTo(bytes.http().url());
        assertThat(decision(s)).isEqualTo("kv_aware:kv_hit");
    }

    @Test
    void aSubscriberThatJoinsAfterTheEnginePublishedReplaysWhatItMissed() {
        VllmWirePublisher pub = new VllmWirePublisher("tcp://127.0.0.1:*", "tcp://127.0.0.1:*", 0, false);
        open.add(pub);
        String prompt = KvFixtures.prompt("early", 5);
        long[] ids = randomIds(5);
        pub.publish(stored(prompt, Arrays.copyOf(ids, 2)));                           // seq 0: blocks 0-1
        int[] t = tokens(prompt);
        pub.publish(new VllmWirePublisher.Stored(Arrays.copyOfRange(ids, 2, 5), ids[1],  // seq 1: blocks 2-4
                Arrays.copyOfRange(t, 2 * BLOCK, 5 * BLOCK), BLOCK, "GPU", null, null, null, null));
        await().atMost(WAIT).until(() -> pub.sent() == 2);                         // nobody subscribed yet

        Engine late = register(List.of(pub), null);
        until(late, () -> index.residentBlocks(late.id()) == 5);

        HttpResponse<String> r = complete(MODEL, prompt, null);
        assertThat(worker(r)).isEqualTo(late.http().url());
        assertThat(decision(r)).isEqualTo("kv_aware:kv_hit");
        String metrics = gateway.client().get("/metrics").body();
        String w = "worker=\"" + late.http().url() + "\"";
        assertThat(MetricsText.sample(metrics, "caravan_kv_replays_total", w)).isGreaterThanOrEqualTo(1);
        assertThat(MetricsText.sample(metrics, "caravan_kv_replayed_batches_total", w)).isGreaterThanOrEqualTo(2);
    }

    @Test
    void dataParallelSizeTwoRoutesBlocksOnEveryRankAndPinsTheRank() {
        Engine dp = dataParallelEngine(2);
        Engine idle = engine(false);
        String onRank1 = KvFixtures.prompt("rank1", 4);
        String onRank0 = KvFixtures.prompt("rank0", 4);
        dp.rank(1).publish(stored(onRank1, randomIds(4)));
        dp.rank(0).publish(stored(onRank0, randomIds(4)));
        until(dp, () -> index.residentBlocks(dp.id()) == 8);

        HttpResponse<String> r1 = complete(MODEL, onRank1, null);
        HttpResponse<String> r0 = complete(MODEL, onRank0, null);

        assertThat(worker(r1)).isEqualTo(dp.http().url());
        assertThat(worker(r0)).isEqualTo(dp.http().url());
        List<RecordingEngine.Received> got = dp.http().received();
        assertThat(got).hasSize(2);
        assertThat(got.get(0).headers()).containsEntry("X-data-parallel-rank", "1");
        assertThat(got.get(1).headers()).containsEntry("X-data-parallel-rank", "0");
        assertThat(idle.http().received()).isEmpty();
        assertThat(gateway.gateway().beans().kv().routes().routeIds())
                .contains("kv-events-" + dp.id(), "kv-events-" + dp.id() + "-dp1");
    }

    @Test
    void loraAndCacheSaltKeepTheSamePromptApart() {
        Engine lora = engine(false);
        Engine plain = engine(false);
        Engine salted = engine(false);
        String prompt = KvFixtures.prompt("scoped", 3);
        VllmWirePublisher.Stored base = stored(prompt, randomIds(3));
        // vLLM: the adapter's name in lora_name and in every block's extra_keys; the salt in block 0's
        lora.rank(0).publish(new VllmWirePublisher.Stored(randomIds(3), null, base.tokens(), BLOCK, "GPU", "sql-lora",
                List.of(List.of("sql-lora"), List.of("sql-lora"), List.of("sql-lora")), null, null));
        plain.rank(0).publish(base);
        List<List<Object>> saltKeys = new ArrayList<>();
        saltKeys.add(List.of("tenant-a"));
        saltKeys.add(null);
        saltKeys.add(null);
        salted.rank(0).publish(new VllmWirePublisher.Stored(randomIds(3), null, base.tokens(), BLOCK, "GPU", null,
                saltKeys, null, null));
        for (Engine e : List.of(lora, plain, salted)) {
            until(e, () -> index.residentBlocks(e.id()) == 3);
        }

        assertThat(worker(complete("sql-lora", prompt, null))).isEqualTo(lora.http().url());
        assertThat(worker(complete(MODEL, prompt, null))).isEqualTo(plain.http().url());
        assertThat(worker(complete(MODEL, prompt, "tenant-a"))).isEqualTo(salted.http().url());
        assertThat(decision(complete(MODEL, prompt, "tenant-b"))).isEqualTo("kv_aware:kv_miss_min_cost");
    }

    @Test
    void aSlidingWindowGroupsEvictionAndAnOffloadToTheCpuKeepTheBlocksRoutable() {
        Engine hybrid = engine(false);
        Engine offloaded = engine(false);
        Engine shortPrefix = engine(false);
        String p = KvFixtures.prompt("hybrid", 4);
        String q = KvFixtures.prompt("offload", 4);
        long[] pIds = randomIds(4);
        VllmWirePublisher.Stored full = stored(p, pIds);
        hybrid.rank(0).publish(new VllmWirePublisher.Stored(pIds, null, full.tokens(), BLOCK, "GPU", null, null, 0,
                "full_attention"), new VllmWirePublisher.Stored(pIds, null, full.tokens(), BLOCK, "GPU", null, null,
                1, "sliding_window"));
        hybrid.rank(0).publish(new VllmWirePublisher.Removed(pIds, "GPU", 1)); // the window slid past them
        long[] qIds = randomIds(4);
        long[] moved = Arrays.copyOfRange(qIds, 1, 4);
        offloaded.rank(0).publish(stored(q, qIds));
        offloaded.rank(0).publish(new VllmWirePublisher.Removed(moved, "GPU", null),
                new VllmWirePublisher.Stored(moved, null, new int[0], 0, "CPU", null, null, null, null));
        shortPrefix.rank(0).publish(stored(q, randomIds(1)));
        until(hybrid, () -> count(hybrid, KvWorkerStats::blockRemovedEvents) == 1);
        until(offloaded, () -> count(offloaded, KvWorkerStats::blockStoredEvents) == 2);
        until(shortPrefix, () -> index.residentBlocks(shortPrefix.id()) == 1);

        HttpResponse<String> r = complete(MODEL, p, null);
        HttpResponse<String> s = complete(MODEL, q, null);

        assertThat(index.residentBlocks(hybrid.id())).isEqualTo(4);
        assertThat(index.residentBlocks(offloaded.id())).isEqualTo(4);
        assertThat(worker(r)).isEqualTo(hybrid.http().url());
        assertThat(decision(r)).isEqualTo("kv_aware:kv_hit");
        // offloaded: 1 GPU block + 3 CPU blocks x 0.8 = 3.4 blocks saved, against 1 on shortPrefix
        assertThat(worker(s)).isEqualTo(offloaded.http().url());
        assertThat(decision(s)).isEqualTo("kv_aware:kv_hit");
    }

    @Test
    void aHybridModelsEngineIsChosenByThePrefixEveryGroupServesNotByFullAttentionAlone() {
        Engine windowKept = engine(false);
        Engine windowLost = engine(false);
        String p = KvFixtures.prompt("sliding", 9);
        int[] t = tokens(p);
        // gpt-oss style: full attention plus a sliding window of 32 tokens (a hit needs the 2 blocks before its end)
        long[] kept = randomIds(6);
        windowKept.rank(0).publish(new VllmWirePublisher.Stored(kept, null, Arrays.copyOf(t, 6 * BLOCK), BLOCK, "GPU",
                null, null, 0, "full_attention"), new VllmWirePublisher.Stored(Arrays.copyOfRange(kept, 4, 6), null,
                Arrays.copyOf(t, 6 * BLOCK), BLOCK, "GPU", null, null, 1, "sliding_window", 32));
        long[] lost = randomIds(8);
        windowLost.rank(0).publish(new VllmWirePublisher.Stored(lost, null, Arrays.copyOf(t, 8 * BLOCK), BLOCK, "GPU",
                null, null, 0, "full_attention"), new VllmWirePublisher.Stored(Arrays.copyOf(lost, 4), null,
                Arrays.copyOf(t, 4 * BLOCK), BLOCK, "GPU", null, null, 1, "sliding_window", 32));
        until(windowKept, () -> index.residentBlocks(windowKept.id()) == 6);
        until(windowLost, () -> index.residentBlocks(windowLost.id()) == 8);

        HttpResponse<String> r = complete(MODEL, p, null);

        // full attention alone says 8 blocks on windowLost against 6; the window group leaves it 4
        assertThat(index.layout(windowLost.id())).isEqualTo("full+sliding_window");
        assertThat(worker(r)).isEqualTo(windowKept.http().url());
        assertThat(decision(r)).isEqualTo("kv_aware:kv_hit");
    }
}
