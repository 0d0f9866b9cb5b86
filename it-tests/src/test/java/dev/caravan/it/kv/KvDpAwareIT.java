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

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.zeromq.ZMQException;

import dev.caravan.it.GatewayClient;
import dev.caravan.it.GatewayHarness;
import dev.caravan.it.KvFixtures;
import dev.caravan.it.RecordingEngine;
import dev.caravan.policies.Worker;
import dev.caravan.policies.kv.KvBlockIndex;
import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.engine.EngineApiFeature;
import dev.caravan.processors.forward.ForwardStreamProcessor;
import dev.caravan.processors.kv.KvFeature;
import dev.caravan.processors.tokens.TokensFeature;
import dev.caravan.sim.text.SyntheticTokenizer;

/**
 * {@code --dp-aware} with kv_aware: an SGLang engine reporting {@code dp_size} 2 becomes workers {@code url@0} and
 * {@code url@1}; each subscribes to its own rank's KV-event ports (events P+r, replay R+r) and is indexed on its rank,
 * so a prompt whose blocks rank 1 announced goes to {@code url@1}, pinned to rank 1. The publishers are written in this
 * module from vLLM's wire format ({@link VllmWirePublisher}) with random engine ids.
 */
class KvDpAwareIT {

    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final String MODEL = "base-model";
    private static final int BLOCK = 16;
    private static final SyntheticTokenizer ENGINE_TOKENIZER = new SyntheticTokenizer(4);

    private final List<AutoCloseable> open = new ArrayList<>();
    private final SplittableRandom random = new SplittableRandom(11);
    private GatewayHarness gateway;
    private RecordingEngine engine;
    private List<VllmWirePublisher> ranks;

    @BeforeEach
    void start() {
        gateway = GatewayHarness.start(GatewayHarness.config(List.of()).with(CoreFlags.DECISION_HEADERS, "true")
                .with(CoreFlags.POLICY_NAME, "kv_aware")
                .with(TokensFeature.TOKENS_SOURCE, "off") // the engine only answers completions, no /tokenize
                .with(EngineApiFeature.DP_AWARE, "true").with(KvFeature.KV_SILENCE_THRESHOLD_SECS, "0"));
        engine = RecordingEngine.start().serverInfo("{\"dp_size\":2}")
                .respond(200, "{\"choices\":[{\"text\":\"ok\"}]}");
        open.add(engine);
        ranks = publishers(2);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("url", engine.url());
        body.put("kv_events_endpoint", ranks.get(0).endpoint());
        body.put("kv_replay_endpoint", ranks.get(0).replayEndpoint());
        assertThat(gateway.client().postJson("/workers", GatewayClient.json(body)).statusCode()).isEqualTo(202);
    }

    @AfterEach
    void stop() throws Exception {
        gateway.close();
        for (AutoCloseable c : open) {
            c.close();
        }
    }

    /** {@code n} rank publishers on consecutive ports: events at P+r, replay at P+n+r (vLLM's and SGLang's offsets). */
    private List<VllmWirePublisher> publishers(int n) {
        for (int attempt = 0; ; attempt++) {
            int base = 20_000 + random.nextInt(40_000);
            List<VllmWirePublisher> made = new ArrayList<>();
            try {
                for (int r = 0; r < n; r++) {
                    made.add(new VllmWirePublisher("tcp://127.0.0.1:" + (base + r),
                            "tcp://127.0.0.1:" + (base + n + r), r, false));
                }
                open.addAll(made);
                return made;
            } catch (ZMQException e) {
                for (VllmWirePublisher p : made) {
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

    private long[] randomIds(int n) {
        long[] ids = new long[n];
        for (int i = 0; i < n; i++) {
            ids[i] = random.nextLong();
        }
        return ids;
    }

    private Worker rankWorker(int rank) {
        return gateway.workers().all().stream().filter(w -> Integer.valueOf(rank).equals(w.dataParallelRank()))
                .findFirst().orElseThrow();
    }

    @Test
    void eachRankWorkerIndexesItsOwnRankAndThePromptGoesToTheRankHoldingIt() {
        await().atMost(WAIT).until(() -> gateway.workers().all().stream().map(Worker::url).toList()
                .equals(List.of(engine.url() + "@0", engine.url() + "@1")));
        KvBlockIndex index = gateway.gateway().beans().kv().index();
        String onRank1 = KvFixtures.prompt("rank1", 4);
        String onRank0 = KvFixtures.prompt("rank0", 4);
        int[] t1 = Arrays.copyOf(ENGINE_TOKENIZER.encode(onRank1, true), 4 * BLOCK);
        int[] t0 = Arrays.copyOf(ENGINE_TOKENIZER.encode(onRank0, true), 4 * BLOCK);
        String id0 = rankWorker(0).id();
        String id1 = rankWorker(1).id();
        VllmWirePublisher.Stored s1 = VllmWirePublisher.Stored.gpu(randomIds(4), null, t1, BLOCK);
        VllmWirePublisher.Stored s0 = VllmWirePublisher.Stored.gpu(randomIds(4), null, t0, BLOCK);
        // published until indexed: the subscriptions start once the probe split the engine (slow joiners)
        await().atMost(WAIT).pollInterval(Duration.ofMillis(50)).until(() -> {
            if (index.residentBlocks(id1) == 4 && index.residentBlocks(id0) == 4) {
                return true;
            }
            ranks.get(1).publish(s1);
            ranks.get(0).publish(s0);
            return false;
        });

        HttpResponse<String> r1 = complete(onRank1);
        HttpResponse<String> r0 = complete(onRank0);

        assertThat(r1.headers().firstValue(ForwardStreamProcessor.WORKER_HEADER)).hasValue(engine.url() + "@1");
        assertThat(r1.headers().firstValue(ForwardStreamProcessor.DECISION_HEADER)).hasValue("kv_aware:kv_hit");
        assertThat(r0.headers().firstValue(ForwardStreamProcessor.WORKER_HEADER)).hasValue(engine.url() + "@0");
        List<RecordingEngine.Received> got = engine.received();
        assertThat(got).hasSize(2);
        assertThat(got.get(0).headers()).containsEntry("X-data-parallel-rank", "1");
        assertThat(got.get(0).body().path("data_parallel_rank").asInt()).isEqualTo(1); // SGLang's body field
        assertThat(got.get(1).headers()).containsEntry("X-data-parallel-rank", "0");
        assertThat(gateway.gateway().beans().kv().routes().routeIds())
                .containsExactlyInAnyOrder("kv-events-" + id0, "kv-events-" + id1 + "-dp1");
    }

    private HttpResponse<String> complete(String prompt) {
        HttpResponse<String> r = gateway.client().postJson("/v1/completions", GatewayClient.json(Map.of(
                "model", MODEL, "prompt", prompt, "max_tokens", 1)));
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return r;
    }
}
