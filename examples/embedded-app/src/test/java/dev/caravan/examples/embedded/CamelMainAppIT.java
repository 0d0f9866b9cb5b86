package dev.caravan.examples.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpServer;
import org.apache.camel.main.Main;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.caravan.processors.flow.FlowFeature;
import dev.caravan.sim.SimFleet;

/**
 * The example application on camel-main, the gateway installed by a MainListener: the application's routes on
 * camel-main's own server, the gateway streaming on its own, and the SIGTERM path (main.completed()) draining a stream
 * in flight before {@code run()} returns.
 */
class CamelMainAppIT {

    private static SimFleet fleet;
    /**
     * Threads of the test's own: {@code main.run()} blocks one until the context stops, and the stream in flight needs
     * another meanwhile. The common pool has one worker on a two-core machine, which newer JDKs' CompletableFuture
     * uses rather than a thread per task, so the stream would wait for {@code run()} to return.
     */
    private static ExecutorService threads;

    @BeforeAll
    static void start() {
        fleet = Fleet.start();
        threads = Executors.newCachedThreadPool();
    }

    @AfterAll
    static void stop() {
        threads.shutdownNow();
        fleet.close();
    }

    @Test
    void servesBothSidesAndDrainsAStreamOnTheSigtermPath() throws Exception {
        CamelMainApp.InstallGateway[] installed = new CamelMainApp.InstallGateway[1];
        Main main = CamelMainApp.create("127.0.0.1", 0, Fleet.gateway(fleet), EmbeddedApp.REPORT_TIME);
        main.getMainListeners().stream().filter(CamelMainApp.InstallGateway.class::isInstance).findFirst()
                .ifPresent(l -> installed[0] = (CamelMainApp.InstallGateway) l);
        CompletableFuture<Void> running = CompletableFuture.runAsync(() -> {
            try {
                main.run();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, threads);
        await().atMost(Duration.ofSeconds(60)).until(() -> running.isDone() || (main.getCamelContext() != null
                && main.getCamelContext().isStarted()));
        assertThat(running).isNotDone();
        assertThat(main.getCamelContext().getShutdownStrategy().getTimeout())
                .as("camel-main's hook waits for the gateway's drain").isEqualTo(
                        Fleet.gateway(fleet).getLong(FlowFeature.SHUTDOWN_GRACE_PERIOD_SECS) + 15);
        Http gateway = new Http(installed[0].gateway().port());
        Http application = new Http(main.getCamelContext().hasService(VertxPlatformHttpServer.class).getServer()
                .actualPort());

        assertThat(application.get("/app/status").body()).isEqualTo("app is fine");
        assertThat(application.get("/app/hello").body()).isEqualTo("hello from the application's YAML route");
        assertThat(gateway.get("/app/status").statusCode()).isEqualTo(404);
        Http.Streamed first = gateway.stream("/v1/chat/completions", Fleet.chat(fleet, true, 10), line -> { });
        assertThat(first.status()).isEqualTo(200);
        assertThat(first.data()).last().isEqualTo("[DONE]");

        CountDownLatch firstToken = new CountDownLatch(1);
        CompletableFuture<Http.Streamed> inFlight = CompletableFuture.supplyAsync(() -> gateway.stream(
                "/v1/chat/completions", Fleet.chat(fleet, true, 40), line -> firstToken.countDown()), threads);
        assertThat(firstToken.await(20, TimeUnit.SECONDS)).isTrue();
        main.completed(); // what camel-main's SIGTERM hook does
        running.get(60, TimeUnit.SECONDS);

        Http.Streamed drained = inFlight.get(10, TimeUnit.SECONDS);
        assertThat(drained.data()).last().isEqualTo("[DONE]");
        assertThat(String.join("\n", drained.data())).contains("\"completion_tokens\":40");
        assertThat(main.getCamelContext().isStopped()).isTrue();
    }
}
