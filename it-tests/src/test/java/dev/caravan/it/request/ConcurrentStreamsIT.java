package dev.caravan.it.request;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.caravan.it.GatewayClient;
import dev.caravan.it.GatewayHarness;
import dev.caravan.it.SimFleetExtension;
import dev.caravan.policies.Worker;
import dev.caravan.processors.config.CoreFlags;

/**
 * 1,000 SSE streams open through the gateway at the same time must not need 1,000 threads: a stream holds no thread
 * while it waits for the engine's next token. The whole JVM (engines, gateway, and the non-blocking test client) is
 * sampled while the streams are open ({@link ConcurrentStreams}).
 */
class ConcurrentStreamsIT {

    private static final int STREAMS = 1000;
    /** Far below one thread per stream; the JVM's idle baseline with Camel, Vert.x and Netty is about 60. */
    private static final int MAX_THREADS = 200;

    /**
     * Four engines, 8 tokens one second apart: every stream stays open ~8 s, longer than it takes a loaded 2-core
     * machine to open all 1,000, so they all overlap; rare tokens keep the CPU free for that.
     */
    @RegisterExtension
    static final SimFleetExtension SIMS = new SimFleetExtension(4, b -> b.maxRunning(STREAMS).decodeMsPerToken(1000)
            .defaultMaxTokens(8));

    @Test
    void aThousandConcurrentStreamsNeedFarFewerThreads() throws Exception {
        try (GatewayHarness gateway = GatewayHarness.start(GatewayHarness.config(SIMS.urls())
                .with(CoreFlags.POLICY_NAME, "round_robin")
                // the harder case: routes start on Vert.x worker threads (a pool of 20); were a stream to keep its
                // thread, no more than 20 could be in flight
                .with(CoreFlags.DISPATCH, "worker"))) {
            warmUp(gateway);
            String body = requestBody();
            ConcurrentStreams.Result r = ConcurrentStreams.run(gateway.port(), STREAMS, i -> body,
                    () -> gateway.workers().all().stream().mapToInt(Worker::load).sum(), 90);
            System.out.printf("ConcurrentStreamsIT: streams=%d completed=%d peakOpen=%d peakInFlight=%d "
                    + "peakJvmThreads=%d%n", STREAMS, r.completed(), r.peakOpen(), r.peakInFlight(), r.peakThreads());
            assertThat(r.ended()).as("all streams ended").isTrue();
            assertThat(r.completed()).isEqualTo(STREAMS);
            assertThat(r.peakInFlight()).as("streams in flight through the gateway at once")
                    .isGreaterThanOrEqualTo(STREAMS * 9 / 10);
            assertThat(r.peakOpen()).as("streams the client was receiving at once")
                    .isGreaterThanOrEqualTo(STREAMS * 9 / 10);
            assertThat(r.peakThreads()).as("JVM threads while they were open").isLessThan(MAX_THREADS);
            assertThat(gateway.workers().all()).allSatisfy(w -> assertThat(w.load()).isZero());
        }
    }

    /** A cold JVM interprets everything at first; a few hundred short requests let the JIT compile the path. */
    private static void warmUp(GatewayHarness gateway) throws Exception {
        String body = "{\"model\":\"" + SIMS.model() + "\",\"max_tokens\":1,\"prompt\":\"warm\"}";
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> sent = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                sent.add(pool.submit(() -> gateway.client().postJson("/v1/completions", body)));
            }
            for (Future<?> f : sent) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private static String requestBody() {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("model", SIMS.model());
        body.put("stream", true);
        body.put("messages", List.of(Map.of("role", "user", "content", "Count the camels.")));
        return GatewayClient.json(body);
    }
}
