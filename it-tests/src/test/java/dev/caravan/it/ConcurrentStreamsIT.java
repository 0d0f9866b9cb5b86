package dev.caravan.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.caravan.policies.Worker;
import dev.caravan.processors.config.CaravanFlags;

/**
 * 1,000 SSE streams open through the gateway at the same time must not need 1,000 threads: a stream holds no thread
 * while it waits for the engine's next token. The whole JVM (engines, gateway, and the non-blocking test client) is
 * sampled with {@link ThreadMXBean} while the streams are open.
 */
class ConcurrentStreamsIT {

    private static final int STREAMS = 1000;
    /** Far below one thread per stream; the JVM's idle baseline with Camel, Vert.x and Netty is about 60. */
    private static final int MAX_THREADS = 200;

    /**
     * Four engines, 6 tokens one second apart: every stream stays open ~6 s, longer than it takes a loaded 2-core
     * machine to open all 1,000, so they all overlap; rare tokens keep the CPU free for that.
     */
    @RegisterExtension
    static final SimFleetExtension SIMS = new SimFleetExtension(4, b -> b.maxRunning(STREAMS).decodeMsPerToken(1000)
            .defaultMaxTokens(6));

    @Test
    void aThousandConcurrentStreamsNeedFarFewerThreads() throws Exception {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        try (GatewayHarness gateway = GatewayHarness.start(GatewayHarness.config(SIMS.urls())
                .with(CaravanFlags.POLICY_NAME, "round_robin")
                // the harder case: routes start on Vert.x worker threads (a pool of 20); were a stream to keep its
                // thread, no more than 20 could be in flight
                .with(CaravanFlags.DISPATCH, "worker"))) {
            warmUp(gateway);
            Vertx vertx = Vertx.vertx();
            HttpClient client = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(false),
                    new PoolOptions().setHttp1MaxSize(STREAMS));
            AtomicInteger open = new AtomicInteger();
            AtomicInteger peakOpen = new AtomicInteger();
            AtomicInteger peakInFlight = new AtomicInteger();
            AtomicInteger peakThreads = new AtomicInteger(threads.getThreadCount());
            AtomicInteger completed = new AtomicInteger();
            CountDownLatch done = new CountDownLatch(STREAMS);
            ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
            sampler.scheduleAtFixedRate(() -> {
                peakThreads.accumulateAndGet(threads.getThreadCount(), Math::max);
                int inFlight = gateway.workers().all().stream().mapToInt(Worker::load).sum();
                peakInFlight.accumulateAndGet(inFlight, Math::max);
            }, 0, 20, TimeUnit.MILLISECONDS);
            try {
                Buffer body = Buffer.buffer(requestBody());
                for (int i = 0; i < STREAMS; i++) {
                    client.request(new RequestOptions().setMethod(HttpMethod.POST).setHost("127.0.0.1")
                                    .setPort(gateway.port()).setURI("/v1/chat/completions")
                                    .putHeader("Content-Type", "application/json"))
                            .compose(req -> req.send(body))
                            .onSuccess(resp -> {
                                peakOpen.accumulateAndGet(open.incrementAndGet(), Math::max);
                                Buffer all = Buffer.buffer();
                                resp.handler(all::appendBuffer);
                                resp.endHandler(v -> {
                                    open.decrementAndGet();
                                    if (resp.statusCode() == 200 && all.toString().contains("data: [DONE]")) {
                                        completed.incrementAndGet();
                                    }
                                    done.countDown();
                                });
                                resp.exceptionHandler(e -> done.countDown());
                            })
                            .onFailure(e -> done.countDown());
                }
                assertThat(done.await(90, TimeUnit.SECONDS)).as("all streams ended").isTrue();
            } finally {
                sampler.shutdownNow();
                client.close();
                vertx.close();
            }
            System.out.printf("ConcurrentStreamsIT: streams=%d completed=%d peakOpen=%d peakInFlight=%d "
                    + "peakJvmThreads=%d%n", STREAMS, completed.get(), peakOpen.get(), peakInFlight.get(),
                    peakThreads.get());
            assertThat(completed.get()).isEqualTo(STREAMS);
            assertThat(peakInFlight.get()).as("streams in flight through the gateway at once")
                    .isGreaterThanOrEqualTo(STREAMS * 9 / 10);
            assertThat(peakOpen.get()).as("streams the client was receiving at once")
                    .isGreaterThanOrEqualTo(STREAMS * 9 / 10);
            assertThat(peakThreads.get()).as("JVM threads while they were open").isLessThan(MAX_THREADS);
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
