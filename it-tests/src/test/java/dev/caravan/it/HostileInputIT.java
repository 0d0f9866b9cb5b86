package dev.caravan.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.caravan.processors.config.CaravanFlags;
import dev.caravan.processors.reliability.BreakerState;
import dev.caravan.processors.reliability.WorkerBreakers;

/**
 * Hostile input: 1,000 seeded malformed requests get a precise 4xx each from the gateway itself, never a 5xx, and none
 * reaches an engine; afterwards no in-flight count is stuck, no worker was marked unhealthy or had its breaker tripped, and normal traffic is served. Plus the HTTP layer's
 * own limits: oversized headers.
 */
class HostileInputIT {

    private static final long SEED = 20_250_101L;
    private static final int REQUESTS = 1000;

    @RegisterExtension
    static final SimFleetExtension SIMS = new SimFleetExtension(2, b -> b.decodeMsPerToken(1).defaultMaxTokens(2));

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void aThousandMalformedRequestsGetPrecise4xxAndLeaveNothingBehind() throws Exception {
        try (GatewayHarness gw = GatewayHarness.start(GatewayHarness.config(SIMS.urls())
                .with(CaravanFlags.MAX_PAYLOAD_SIZE, Integer.toString(MalformedRequests.PAYLOAD_LIMIT))
                .with(CaravanFlags.CB_FAILURE_THRESHOLD, "3")
                .with(CaravanFlags.HEALTH_CHECK_INTERVAL_SECS, "1"))) {
            long engineRequestsBefore = engineRequests();
            MalformedRequests generator = new MalformedRequests(SEED);
            List<MalformedRequests.Case> cases = new ArrayList<>();
            for (int i = 0; i < REQUESTS; i++) {
                cases.add(generator.next());
            }
            Map<Integer, AtomicInteger> byStatus = new ConcurrentHashMap<>();
            Map<String, AtomicInteger> byKind = new ConcurrentHashMap<>();
            List<String> unexpected = java.util.Collections.synchronizedList(new ArrayList<>());
            ExecutorService pool = Executors.newFixedThreadPool(8);
            List<Future<?>> sent = new ArrayList<>();
            long start = System.nanoTime();
            for (MalformedRequests.Case c : cases) {
                sent.add(pool.submit(() -> {
                    int status;
                    String body;
                    try {
                        HttpResponse<String> r = send(gw.url(), c);
                        status = r.statusCode();
                        body = r.body();
                    } catch (Exception e) {
                        status = -1;
                        body = e.toString();
                    }
                    byStatus.computeIfAbsent(status, s -> new AtomicInteger()).incrementAndGet();
                    byKind.computeIfAbsent(c.kind(), s -> new AtomicInteger()).incrementAndGet();
                    if (!c.expected().contains(status) || (status >= 400 && !body.contains("\"error\""))) {
                        unexpected.add(status + " for " + c + " -> " + body.substring(0, Math.min(200, body.length())));
                    }
                }));
            }
            for (Future<?> f : sent) {
                f.get(120, TimeUnit.SECONDS);
            }
            pool.shutdownNow();
            long ms = (System.nanoTime() - start) / 1_000_000;

            assertThat(unexpected).as("requests answered otherwise than expected").isEmpty();
            assertThat(byStatus.keySet()).allSatisfy(s -> assertThat(s).isBetween(400, 499));
            assertThat(engineRequests() - engineRequestsBefore).as("malformed requests that reached an engine")
                    .isZero();
            var admission = gw.gateway().beans().reliability().admission();
            await().atMost(Duration.ofSeconds(5)).until(() -> admission.inFlight() == 0);
            assertThat(gw.workers().all()).allSatisfy(w -> assertThat(w.load()).isZero());
            WorkerBreakers breakers = gw.gateway().beans().reliability().breakers();
            assertThat(gw.workers().all()).allSatisfy(w -> {
                assertThat(w.isHealthy()).isTrue();
                assertThat(breakers.state(w)).isEqualTo(BreakerState.CLOSED);
            });
            HttpResponse<String> normal = gw.client().postJson("/v1/chat/completions",
                    "{\"messages\":[{\"role\":\"user\",\"content\":\"still there?\"}]}");
            assertThat(normal.statusCode()).isEqualTo(200);
            GatewayClient.Streamed stream = gw.client().stream("/v1/completions", "{\"prompt\":\"hi\",\"stream\":true}");
            assertThat(stream.data()).last().isEqualTo("[DONE]");

            Map<String, Object> figures = new LinkedHashMap<>();
            figures.put("requests", REQUESTS);
            figures.put("seed", SEED);
            figures.put("by_status", new TreeMap<>(byStatus));
            figures.put("by_kind", new TreeMap<>(byKind));
            figures.put("5xx", 0);
            figures.put("reached_engines", 0);
            figures.put("ms", ms);
            ChaosReport.record("hostile-input", figures);
        }
    }

    /** Inference requests the engines received, as their {@code /sim/stats} counts them. */
    private static long engineRequests() {
        return SIMS.engine(0).stats().requests() + SIMS.engine(1).stats().requests();
    }

    private static HttpResponse<String> send(String base, MalformedRequests.Case c) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + c.path())).timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofByteArray(c.body()));
        if (c.contentType() != null) {
            b.header("Content-Type", c.contentType());
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void oversizedHeadersAre431AndTheConnectionIsNotAWorkerProblem() throws Exception {
        try (GatewayHarness gw = GatewayHarness.start(GatewayHarness.config(SIMS.urls()))) {
            String status;
            try (Socket s = new Socket("127.0.0.1", gw.port())) {
                s.setSoTimeout(10_000);
                byte[] body = "{\"prompt\":\"hi\"}".getBytes(StandardCharsets.UTF_8);
                String head = "POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                        + "X-Huge: " + "a".repeat(20_000) + "\r\nContent-Length: " + body.length + "\r\n\r\n";
                OutputStream out = s.getOutputStream();
                out.write(head.getBytes(StandardCharsets.US_ASCII));
                out.write(body);
                out.flush();
                status = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII))
                        .readLine();
            }
            assertThat(status).startsWith("HTTP/1.1 431");
            assertThat(gw.client().postJson("/v1/completions", "{\"prompt\":\"hi\"}").statusCode()).isEqualTo(200);
        }
    }
}
