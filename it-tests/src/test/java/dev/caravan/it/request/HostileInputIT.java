package dev.caravan.it.request;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
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

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.health.HealthFeature;
import dev.caravan.it.ChaosReport;
import dev.caravan.it.GatewayClient;
import dev.caravan.it.GatewayHarness;
import dev.caravan.it.MetricsText;
import dev.caravan.it.SimFleetExtension;
import dev.caravan.processors.reliability.BreakerState;
import dev.caravan.processors.reliability.ReliabilityFeature;
import dev.caravan.processors.reliability.WorkerBreakers;

/**
 * Hostile input: 1,000 seeded malformed requests get a precise 4xx each from the gateway itself, never a 5xx, and none
 * reaches an engine; afterwards no in-flight count is stuck, no worker was marked unhealthy or had its breaker tripped,
 * and normal traffic is served. Plus the HTTP layer's own limits: oversized headers (431) and an over-long request line
 * (414) get the same JSON error shape from every server event loop, are counted, and leave streaming intact.
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
                .with(CoreFlags.MAX_PAYLOAD_SIZE, Integer.toString(MalformedRequests.PAYLOAD_LIMIT))
                .with(ReliabilityFeature.CB_FAILURE_THRESHOLD, "3")
                .with(HealthFeature.HEALTH_CHECK_INTERVAL_SECS, "1"))) {
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
            var admission = gw.gateway().beans().flow().admission();
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
    void oversizedHeadersAndOverLongRequestLinesGetJsonErrorsOnEveryEventLoopAndAreNotAWorkerProblem()
            throws Exception {
        try (GatewayHarness gw = GatewayHarness.start(GatewayHarness.config(SIMS.urls())
                .with(CoreFlags.SERVER_EVENT_LOOPS, "2"))) {
            byte[] body = "{\"prompt\":\"hi\"}".getBytes(StandardCharsets.US_ASCII);
            String hugeHeaders = "POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                    + "X-Huge: " + "a".repeat(20_000) + "\r\nContent-Length: " + body.length + "\r\n\r\n"
                    + new String(body, StandardCharsets.US_ASCII);
            String longUri = "GET /v1/models?q=" + "u".repeat(10_000) + " HTTP/1.1\r\nHost: x\r\n\r\n";
            // new connections alternate between the main server and the extra event loop's: both must answer in JSON
            for (int i = 0; i < 4; i++) {
                RawResponse headers = RawResponse.exchange(gw.port(), hugeHeaders);
                assertThat(headers.statusLine()).isEqualTo("HTTP/1.1 431 Request Header Fields Too Large");
                assertThat(headers.header("x-caravan-error-code")).isEqualTo("headers_too_large");
                assertThat(headers.header("connection")).isEqualTo("close");
                assertError(headers, "Request Header Fields Too Large", "headers_too_large",
                        "request headers exceed the gateway's limit of 8192 bytes");

                RawResponse uri = RawResponse.exchange(gw.port(), longUri);
                assertThat(uri.statusLine()).matches("HTTP/1\\.[01] 414 Request-URI Too Long");
                assertError(uri, "Request-URI Too Long", "uri_too_long",
                        "request line exceeds the gateway's limit of 4096 bytes");
            }

            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
                String metrics = gw.client().get("/metrics").body();
                assertThat(MetricsText.sample(metrics, "caravan_requests_total", "endpoint=\"unmatched\"",
                        "status=\"431\"")).isEqualTo(4.0);
                assertThat(MetricsText.sample(metrics, "caravan_requests_total", "endpoint=\"unmatched\"",
                        "status=\"414\"")).isEqualTo(4.0);
            });
            assertThat(gw.workers().all()).allSatisfy(w -> assertThat(w.isHealthy()).isTrue());
            assertThat(gw.client().postJson("/v1/completions", "{\"prompt\":\"hi\"}").statusCode()).isEqualTo(200);
            GatewayClient.Streamed stream = gw.client().stream("/v1/completions", "{\"prompt\":\"hi\",\"stream\":true}");
            assertThat(stream.data()).last().isEqualTo("[DONE]");
        }
    }

    private static void assertError(RawResponse r, String type, String code, String message) {
        assertThat(r.header("content-type")).isEqualTo("application/json");
        JsonNode error = GatewayClient.parse(r.body()).path("error");
        assertThat(error.path("type").asText()).isEqualTo(type);
        assertThat(error.path("code").asText()).isEqualTo(code);
        assertThat(error.path("message").asText()).isEqualTo(message);
    }

    /** An HTTP/1.x response read off a raw socket until the server closed the connection. */
    private record RawResponse(String statusLine, Map<String, String> headers, String body) {

        static RawResponse exchange(int port, String request) throws IOException {
            String text;
            try (Socket s = new Socket("127.0.0.1", port)) {
                s.setSoTimeout(10_000);
                OutputStream out = s.getOutputStream();
                out.write(request.getBytes(StandardCharsets.US_ASCII));
                out.flush();
                text = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            }
            int end = text.indexOf("\r\n\r\n");
            assertThat(end).as("a complete response head in %s", text).isPositive();
            String[] lines = text.substring(0, end).split("\r\n");
            Map<String, String> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
            for (int i = 1; i < lines.length; i++) {
                int colon = lines[i].indexOf(':');
                headers.put(lines[i].substring(0, colon).trim(), lines[i].substring(colon + 1).trim());
            }
            return new RawResponse(lines[0], headers, text.substring(end + 4));
        }

        String header(String name) {
            return headers.get(name);
        }
    }
}
