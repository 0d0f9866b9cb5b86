package dev.caravan.it.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.apache.camel.main.Main;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.caravan.app.GatewayMain;
import dev.caravan.gateway.CaravanGateway;
import dev.caravan.it.ChaosReport;
import dev.caravan.it.GatewayClient;
import dev.caravan.it.GatewayHarness;
import dev.caravan.it.SimFleetExtension;
import dev.caravan.it.StreamRecorder;
import dev.caravan.processors.admission.AdmissionController;
import dev.caravan.processors.flow.FlowFeature;

/**
 * Graceful shutdown through the path SIGTERM takes (the Camel context stopping): new requests get 503 and readiness
 * fails while in-flight streams finish, then the gateway stops; streams still running when the grace period ends are
 * cut.
 */
class ShutdownIT {

    @RegisterExtension
    static final SimFleetExtension SIMS = new SimFleetExtension(2, b -> b.decodeMsPerToken(100).defaultMaxTokens(30));

    private static String body(int maxTokens) {
        return GatewayClient.json(Map.of("stream", true, "max_tokens", maxTokens, "messages",
                List.of(Map.of("role", "user", "content", "Keep talking."))));
    }

    @Test
    void stoppingRefusesNewRequestsAndWaitsForInFlightStreams() throws Exception {
        GatewayHarness gw = GatewayHarness.start(GatewayHarness.config(SIMS.urls()));
        try (StreamRecorder client = new StreamRecorder(gw.port())) {
            List<StreamRecorder.Stream> streams = client.send(20, "/v1/chat/completions", body(30));
            await().atMost(Duration.ofSeconds(20)).until(() -> client.headsReceived(streams) == 20);
            AdmissionController admission = gw.gateway().beans().flow().admission();

            long start = System.nanoTime();
            CompletableFuture<Void> stopping = CompletableFuture.runAsync(gw::close);
            await().atMost(Duration.ofSeconds(5)).until(admission::draining);
            HttpResponse<String> refused = gw.client().postJson("/v1/completions", "{\"prompt\":\"too late\"}");
            HttpResponse<String> readiness = gw.client().get("/readiness");
            stopping.get(60, TimeUnit.SECONDS);
            long stopMs = (System.nanoTime() - start) / 1_000_000;
            assertThat(client.awaitAll(Duration.ofSeconds(10))).isTrue();

            assertThat(refused.statusCode()).isEqualTo(503);
            assertThat(refused.body()).contains("\"code\":\"shutting_down\"");
            assertThat(readiness.statusCode()).isEqualTo(503);
            assertThat(readiness.body()).contains("shutting down");
            assertThat(streams).allSatisfy(s -> assertThat(s.completed()).as(s.toString()).isTrue());
            assertThat(streams.stream().mapToLong(s -> s.endNanos).max().orElseThrow())
                    .as("the gateway stopped only after the last stream ended").isLessThan(System.nanoTime());

            Map<String, Object> figures = new LinkedHashMap<>();
            figures.put("in_flight_streams", 20);
            figures.put("completed", streams.stream().filter(StreamRecorder.Stream::completed).count());
            figures.put("refused_while_draining", refused.statusCode());
            figures.put("stop_ms", stopMs);
            ChaosReport.record("shutdown", figures);
        }
    }

    @Test
    void streamsStillRunningWhenTheGracePeriodEndsAreCut() throws Exception {
        GatewayHarness gw = GatewayHarness.start(GatewayHarness.config(SIMS.urls())
                .with(FlowFeature.SHUTDOWN_GRACE_PERIOD_SECS, "1"));
        try (StreamRecorder client = new StreamRecorder(gw.port())) {
            List<StreamRecorder.Stream> streams = client.send(4, "/v1/chat/completions", body(600)); // 60 s each
            await().atMost(Duration.ofSeconds(20)).until(() -> client.headsReceived(streams) == 4);

            long start = System.nanoTime();
            gw.close();
            long stopMs = (System.nanoTime() - start) / 1_000_000;

            assertThat(stopMs).as("grace 1 s, then Camel's 1 s").isLessThan(10_000);
            assertThat(client.awaitAll(Duration.ofSeconds(10))).isTrue();
            assertThat(streams).allSatisfy(s -> assertThat(s.completed()).isFalse());
        }
    }

    /** {@code main.completed()} is what camel-main's SIGTERM hook calls; {@code run()} then stops the context. */
    @Test
    void theCamelMainApplicationDrainsOnTheSigtermPath() throws Exception {
        Main main = GatewayMain.create(GatewayHarness.config(SIMS.urls()), Map.of());
        CompletableFuture<Void> running = CompletableFuture.runAsync(() -> {
            try {
                main.run();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        await().atMost(Duration.ofSeconds(30)).until(() -> main.getCamelContext() != null
                && main.getCamelContext().isStarted());
        int port = CaravanGateway.port(main.getCamelContext());
        try (StreamRecorder client = new StreamRecorder(port)) {
            List<StreamRecorder.Stream> streams = client.send(5, "/v1/chat/completions", body(20));
            await().atMost(Duration.ofSeconds(20)).until(() -> client.headsReceived(streams) == 5);
            assertThat(main.getCamelContext().getShutdownStrategy().getTimeout())
                    .as("camel-main's hook waits for the grace period").isEqualTo(180 + 15);

            main.completed();
            running.get(60, TimeUnit.SECONDS);

            assertThat(client.awaitAll(Duration.ofSeconds(10))).isTrue();
            assertThat(streams).allSatisfy(s -> assertThat(s.completed()).as(s.toString()).isTrue());
            assertThat(main.getCamelContext().isStopped()).isTrue();
        }
    }
}
