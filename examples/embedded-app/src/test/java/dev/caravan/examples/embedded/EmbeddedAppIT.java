package dev.caravan.examples.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.ConnectException;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.caravan.sim.SimFleet;

/**
 * The example application on a plain DefaultCamelContext, with the gateway embedded: streaming through the gateway,
 * the application's own routes beside it, a blocking application route that leaves the gateway's latency alone, and
 * a stop that lets a stream in flight finish.
 */
class EmbeddedAppIT {

    private static SimFleet fleet;
    private static EmbeddedApp app;
    private static Http gateway;
    private static Http application;

    @BeforeAll
    static void start() throws Exception {
        fleet = Fleet.start();
        app = EmbeddedApp.start("127.0.0.1", 0, Fleet.gateway(fleet), EmbeddedApp.REPORT_TIME);
        gateway = new Http(app.gatewayPort());
        application = new Http(app.appPort());
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        }
        if (fleet != null) {
            fleet.close();
        }
    }

    @Test
    void streamsThroughTheEmbeddedGatewayAsTheEngineGenerates() {
        Http.Streamed s = gateway.stream("/v1/chat/completions", Fleet.chat(fleet, true, 20), line -> { });

        assertThat(s.status()).isEqualTo(200);
        assertThat(s.contentType()).startsWith("text/event-stream");
        assertThat(s.data()).hasSizeGreaterThanOrEqualTo(20).last().isEqualTo("[DONE]");
        List<Http.Line> data = s.lines().stream().filter(l -> l.text().startsWith("data:")).toList();
        long spreadMs = (data.get(data.size() - 1).nanos() - data.get(0).nanos()) / 1_000_000;
        assertThat(spreadMs).as("20 tokens of %d ms arrive over time, not in one buffer", Fleet.DECODE_MS_PER_TOKEN)
                .isGreaterThanOrEqualTo(10L * Fleet.DECODE_MS_PER_TOKEN);
    }

    @Test
    void theApplicationsOwnRoutesServeBesideTheGatewayWhoseErrorsStayJson() {
        assertThat(application.get("/app/status").body()).isEqualTo("app is fine");
        assertThat(application.get("/app/hello").body()).isEqualTo("hello from the application's YAML route");
        assertThat(app.context().createProducerTemplate().requestBody("direct:greet", "camel", String.class))
                .isEqualTo("hello camel");
        assertThat(gateway.get("/health").statusCode()).isEqualTo(200);

        HttpResponse<String> notTheGateways = gateway.get("/app/status");
        assertThat(notTheGateways.statusCode()).isEqualTo(404);
        assertThat(notTheGateways.body()).contains("\"code\":\"not_found\"");
        assertThat(application.get("/v1/models").statusCode()).isEqualTo(404);
        assertThat(gateway.get("/v1/chat/completions").body()).as("405 from the gateway's own server")
                .contains("\"code\":\"method_not_allowed\"");
        HttpResponse<String> hugeHeaders = gateway.get("/v1/models", "X-Huge", "a".repeat(20_000));
        assertThat(hugeHeaders.statusCode()).isEqualTo(431);
        assertThat(hugeHeaders.body()).contains("\"code\":\"headers_too_large\"");
        assertThat(gateway.get("/metrics").body()).contains("caravan_requests_total{endpoint=\"/health\"")
                .doesNotContain("endpoint=\"/app/");
    }

    @Test
    void aBlockingApplicationRouteLeavesTheGatewaysLatencyAlone() throws Exception {
        String completion = Fleet.chat(fleet, false, 2);
        for (int i = 0; i < 5; i++) {
            gateway.timedPostJson("/v1/chat/completions", completion); // warm-up
        }
        List<Double> unblocked = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            unblocked.add(gateway.timedPostJson("/v1/chat/completions", completion));
        }

        int reports = 8;
        List<CompletableFuture<HttpResponse<String>>> slow = new ArrayList<>();
        for (int i = 0; i < reports; i++) {
            slow.add(application.getAsync("/app/report"));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> reportsInFlight() == reports);
        List<Double> blocked = new ArrayList<>();
        while (blocked.size() < 20) {
            double ms = gateway.timedPostJson("/v1/chat/completions", completion);
            if (reportsInFlight() < reports) {
                break; // the reports ended during this request: it no longer counts as measured while blocked
            }
            blocked.add(ms);
        }

        double p50Unblocked = Http.median(unblocked);
        double p50Blocked = blocked.isEmpty() ? Double.NaN : Http.median(blocked);
        System.out.printf("gateway p50 %.1f ms unblocked, %.1f ms while %d application requests block for %d s "
                        + "(%d samples; ratio %.2f)%n", p50Unblocked, p50Blocked, reports,
                EmbeddedApp.REPORT_TIME.toSeconds(), blocked.size(), p50Blocked / p50Unblocked);
        for (CompletableFuture<HttpResponse<String>> r : slow) {
            assertThat(r.get(30, TimeUnit.SECONDS).body()).isEqualTo("report ready");
        }
        assertThat(blocked).as("gateway requests measured while all reports blocked").hasSizeGreaterThanOrEqualTo(10);
        assertThat(p50Blocked).isLessThanOrEqualTo(2 * p50Unblocked);
    }

    private static int reportsInFlight() {
        return app.context().getInflightRepository().size(HostRoutes.REPORT_ROUTE);
    }

    @Test
    void stoppingLetsAStreamInFlightFinishThenReleasesBothPorts() throws Exception {
        EmbeddedApp stopping = EmbeddedApp.start("127.0.0.1", 0, Fleet.gateway(fleet), EmbeddedApp.REPORT_TIME);
        int[] ports = {stopping.gatewayPort(), stopping.appPort()};
        Http client = new Http(ports[0]);
        CountDownLatch firstToken = new CountDownLatch(1);
        CompletableFuture<Http.Streamed> stream = CompletableFuture.supplyAsync(() -> client.stream(
                "/v1/chat/completions", Fleet.chat(fleet, true, 40), line -> firstToken.countDown()));
        assertThat(firstToken.await(20, TimeUnit.SECONDS)).isTrue();

        AtomicLong stoppedAt = new AtomicLong();
        CompletableFuture<Void> stop = CompletableFuture.runAsync(() -> {
            stopping.close();
            stoppedAt.set(System.nanoTime());
        });
        Http.Streamed s = stream.get(60, TimeUnit.SECONDS);
        stop.get(60, TimeUnit.SECONDS);

        assertThat(s.status()).isEqualTo(200);
        assertThat(s.data()).hasSizeGreaterThanOrEqualTo(40).last().isEqualTo("[DONE]");
        assertThat(String.join("\n", s.data())).as("every token, then the end")
                .contains("\"finish_reason\":\"length\"").contains("\"completion_tokens\":40");
        assertThat(stoppedAt.get()).as("the stop returned after the stream ended")
                .isGreaterThan(s.lines().get(s.lines().size() - 1).nanos());
        assertThat(stopping.context().isStopped()).isTrue();
        for (int port : ports) {
            assertThatThrownBy(() -> new Socket("127.0.0.1", port).close()).isInstanceOf(ConnectException.class);
        }
    }
}
