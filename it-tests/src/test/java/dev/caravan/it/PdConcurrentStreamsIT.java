package dev.caravan.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
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
import dev.caravan.policies.WorkerRole;

/**
 * Hundreds of P/D streams at once hold no thread each: the multicast's thread pool only starts the legs, the legs and
 * the relay run on the event loops. The whole JVM (engines, gateway, the non-blocking test client) is sampled with
 * {@link ThreadMXBean} while the streams are open.
 */
class PdConcurrentStreamsIT {

    private static final int STREAMS = 400;
    /** Far below one thread per stream (or two per P/D request); the idle JVM has about 60-80. */
    private static final int MAX_THREADS = 200;

    /** 8 tokens one second apart: every stream stays open ~8 s, long enough for all of them to overlap. */
    @RegisterExtension
    static final PdFleetExtension PD = new PdFleetExtension(2, 2,
            b -> b.maxRunning(STREAMS).decodeMsPerToken(1000).defaultMaxTokens(8));

    @Test
    void hundredsOfConcurrentPdStreamsNeedFarFewerThreads() throws Exception {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        try (GatewayHarness gateway = GatewayHarness.start(PD.gatewayConfig())) {
            Vertx vertx = Vertx.vertx();
            HttpClient client = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(false),
                    new PoolOptions().setHttp1MaxSize(STREAMS));
            AtomicInteger peakInFlight = new AtomicInteger();
            AtomicInteger peakThreads = new AtomicInteger(threads.getThreadCount());
            AtomicInteger completed = new AtomicInteger();
            CountDownLatch done = new CountDownLatch(STREAMS);
            ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
            sampler.scheduleAtFixedRate(() -> {
                peakThreads.accumulateAndGet(threads.getThreadCount(), Math::max);
                int decoding = gateway.workers().all().stream().filter(w -> w.role() == WorkerRole.DECODE)
                        .mapToInt(Worker::load).sum();
                peakInFlight.accumulateAndGet(decoding, Math::max);
            }, 0, 20, TimeUnit.MILLISECONDS);
            try {
                for (int i = 0; i < STREAMS; i++) {
                    Buffer body = Buffer.buffer(requestBody(i));
                    client.request(new RequestOptions().setMethod(HttpMethod.POST).setHost("127.0.0.1")
                                    .setPort(gateway.port()).setURI("/v1/chat/completions")
                                    .putHeader("Content-Type", "application/json"))
                            .compose(req -> req.send(body))
                            .onSuccess(resp -> {
                                Buffer all = Buffer.buffer();
                                resp.handler(all::appendBuffer);
                                resp.endHandler(v -> {
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
            System.out.printf("PdConcurrentStreamsIT: streams=%d completed=%d peakDecodeInFlight=%d "
                    + "peakJvmThreads=%d%n", STREAMS, completed.get(), peakInFlight.get(), peakThreads.get());
            assertThat(completed.get()).isEqualTo(STREAMS);
            assertThat(peakInFlight.get()).as("decode streams in flight through the gateway at once")
                    .isGreaterThanOrEqualTo(STREAMS * 9 / 10);
            assertThat(peakThreads.get()).as("JVM threads while they were open").isLessThan(MAX_THREADS);
            assertThat(gateway.workers().all()).allSatisfy(w -> assertThat(w.load()).isZero());
        }
    }

    private static String requestBody(int i) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("model", PD.model());
        body.put("stream", true);
        body.put("messages", List.of(Map.of("role", "user", "content", "Count the camels, caravan " + i + ".")));
        return GatewayClient.json(body);
    }
}
