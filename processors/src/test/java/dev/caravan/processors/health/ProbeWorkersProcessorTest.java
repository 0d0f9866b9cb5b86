package dev.caravan.processors.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;

import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.dns.AddressResolverOptions;
import io.vertx.core.http.HttpServer;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.caravan.policies.Worker;

/** Probes against a loopback server: /ok answers 200, /down 503, /hang never; the key header is checked. */
class ProbeWorkersProcessorTest {

    private static final CamelContext CAMEL = new DefaultCamelContext();
    private static Vertx vertx;
    private static HttpServer server;
    private static final AtomicReference<String> lastAuth = new AtomicReference<>();

    @BeforeAll
    static void start() throws Exception {
        CAMEL.start();
        // worker_a (a host java.net.URI cannot parse) resolves to loopback through this Vert.x's own hosts entries
        vertx = Vertx.vertx(new VertxOptions().setAddressResolverOptions(new AddressResolverOptions()
                .setHostsValue(Buffer.buffer("127.0.0.1 worker_a\n"))));
        server = vertx.createHttpServer().requestHandler(req -> {
            lastAuth.set(req.getHeader("Authorization"));
            switch (req.path()) {
                case "/ok" -> req.response().end("fine");
                case "/down" -> req.response().setStatusCode(503).end();
                default -> { } // hang
            }
        }).listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @AfterAll
    static void stop() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        CAMEL.close();
    }

    private static HealthProbe probe(String path, Worker w, long timeoutMs) {
        return new HealthProbe(w, "http://127.0.0.1:" + server.actualPort() + path, Duration.ofMillis(timeoutMs));
    }

    @Test
    void probesConcurrentlyAndReportsEachResultWithinItsTimeout() {
        Worker w = Worker.builder("http://127.0.0.1:" + server.actualPort()).build();
        Worker dead = Worker.builder("http://127.0.0.1:1").build();
        ProbeWorkersProcessor probeWorkers = new ProbeWorkersProcessor(vertx, "gw-key");
        Exchange e = new DefaultExchange(CAMEL);
        e.getMessage().setBody(List.of(probe("/ok", w, 2000), probe("/down", w, 2000), probe("/hang", w, 300),
                new HealthProbe(dead, "http://127.0.0.1:1/health", Duration.ofMillis(2000))));
        AtomicReference<Boolean> done = new AtomicReference<>();

        long start = System.nanoTime();
        assertThat(probeWorkers.process(e, done::set)).isFalse();
        await().atMost(Duration.ofSeconds(5)).until(() -> done.get() != null);
        long ms = (System.nanoTime() - start) / 1_000_000;

        @SuppressWarnings("unchecked")
        Map<String, HealthProbeResult> byUrl = ((List<HealthProbeResult>) e.getMessage().getBody(List.class)).stream()
                .collect(Collectors.toMap(r -> r.probe().url().replaceAll(".*:\\d+", ""), r -> r));
        assertThat(byUrl.get("/ok").ok()).isTrue();
        assertThat(byUrl.get("/down").ok()).isFalse();
        assertThat(byUrl.get("/down").detail()).isEqualTo("HTTP 503");
        assertThat(byUrl.get("/hang").ok()).isFalse();
        assertThat(byUrl.get("/hang").detail()).startsWith("timeout");
        assertThat(byUrl.get("/health").ok()).as("connection refused").isFalse();
        assertThat(ms).as("the hung probe did not hold the others").isLessThan(2000);
        assertThat(lastAuth.get()).isEqualTo("Bearer gw-key");
    }

    @Test
    void aWorkersOwnKeyIsSentInsteadOfTheGateways() {
        Worker w = Worker.builder("http://127.0.0.1:" + server.actualPort()).apiKey("worker-key").build();
        ProbeWorkersProcessor probeWorkers = new ProbeWorkersProcessor(vertx, "gw-key");
        Exchange e = new DefaultExchange(CAMEL);
        e.getMessage().setBody(List.of(probe("/ok", w, 2000)));
        AtomicReference<Boolean> done = new AtomicReference<>();
        probeWorkers.process(e, done::set);
        await().atMost(Duration.ofSeconds(5)).until(() -> done.get() != null);
        assertThat(lastAuth.get()).isEqualTo("Bearer worker-key");
    }

    @Test
    void probesAWorkerWhoseHostHasAnUnderscore() {
        Worker w = Worker.builder("http://worker_a:" + server.actualPort()).build();
        ProbeWorkersProcessor probeWorkers = new ProbeWorkersProcessor(vertx, null);
        Exchange e = new DefaultExchange(CAMEL);
        e.getMessage().setBody(List.of(new HealthProbe(w, w.url() + "/ok", Duration.ofMillis(2000))));
        AtomicReference<Boolean> done = new AtomicReference<>();
        probeWorkers.process(e, done::set);
        await().atMost(Duration.ofSeconds(5)).until(() -> done.get() != null);
        HealthProbeResult r = (HealthProbeResult) e.getMessage().getBody(List.class).get(0);
        assertThat(r.ok()).as(r.detail()).isTrue();
        assertThat(r.detail()).isEqualTo("HTTP 200");
    }
}
