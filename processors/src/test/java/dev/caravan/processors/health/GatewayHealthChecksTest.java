package dev.caravan.processors.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import io.netty.channel.DefaultEventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import io.vertx.core.Vertx;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.health.HealthCheck;
import org.apache.camel.health.HealthCheckHelper;
import org.apache.camel.health.HealthCheckRegistry;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.caravan.components.http.GatewayHttpServer;
import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerRegistry;
import dev.caravan.policies.WorkerRole;
import dev.caravan.processors.Json;
import dev.caravan.processors.kv.KvRouteManager;
import dev.caravan.processors.kv.KvSettings;
import dev.caravan.processors.reliability.AttemptOutcome;
import dev.caravan.processors.reliability.BreakerConfig;
import dev.caravan.processors.reliability.WorkerBreakers;

/**
 * The gateway's checks in a real Camel context's {@link HealthCheckRegistry}, and the {@code /readiness} /
 * {@code /liveness} steps answering from it.
 */
class GatewayHealthChecksTest {

    private final WorkerRegistry workers = new WorkerRegistry();
    private final WorkerBreakers breakers = new WorkerBreakers(new BreakerConfig(true, 2, 1, Duration.ofSeconds(60)),
            java.time.Clock.systemUTC());
    private final AtomicBoolean prefillDecode = new AtomicBoolean();
    private final AtomicBoolean draining = new AtomicBoolean();
    private final AtomicLong nanos = new AtomicLong();
    private final DefaultEventLoopGroup loops = new DefaultEventLoopGroup(2);
    private final CamelContext camel = new DefaultCamelContext();
    private Vertx vertx;
    private GatewayHttpServer server;
    private EventLoopHeartbeat heartbeat;
    private GatewayHealthChecks checks;

    @BeforeEach
    void start() throws Exception {
        workers.addListener(breakers);
        vertx = Vertx.vertx();
        server = new GatewayHttpServer(vertx, "127.0.0.1", 0, 1024, 1, (e, endpoint, status, n) -> { });
        server.start();
        heartbeat = new EventLoopHeartbeat(loops, Duration.ofMillis(10), nanos::get);
        checks = new GatewayHealthChecks(List.of(
                new WorkersHealthCheck(workers, prefillDecode::get, breakers),
                new KvSubscriptionsHealthCheck(workers, KvSettings.defaults()),
                new ListenerHealthCheck(server, draining::get),
                new EventLoopsHealthCheck(heartbeat, Duration.ofSeconds(10))));
        camel.start();
        checks.register(camel);
    }

    @AfterEach
    void stop() throws Exception {
        heartbeat.close();
        loops.shutdownGracefully();
        server.stop();
        vertx.close();
        camel.close();
    }

    private Exchange call(boolean readiness) {
        Exchange e = new DefaultExchange(camel);
        new ReportHealthProcessor(checks, readiness).process(e);
        return e;
    }

    private static int status(Exchange e) {
        Integer s = e.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE, Integer.class);
        return s == null ? 200 : s;
    }

    private static Map<String, Object> body(Exchange e) {
        return Json.parseObject(e.getMessage().getBody(String.class).getBytes());
    }

    private HealthCheck.State registry(String id) {
        return HealthCheckHelper.invoke(camel, id, Map.of()).orElseThrow().getState();
    }

    @Test
    void theChecksAreInCamelsRegistryInTheGatewaysGroup() {
        HealthCheckRegistry registry = HealthCheckRegistry.get(camel);
        assertThat(registry.stream().filter(c -> GatewayHealthChecks.GROUP.equals(c.getGroup())).map(HealthCheck::getId))
                .containsExactlyInAnyOrder(WorkersHealthCheck.ID, KvSubscriptionsHealthCheck.ID,
                        ListenerHealthCheck.ID, EventLoopsHealthCheck.ID);
        assertThat(registry.getCheck(EventLoopsHealthCheck.ID).orElseThrow().isReadiness()).isFalse();
        assertThat(registry.getCheck(EventLoopsHealthCheck.ID).orElseThrow().isLiveness()).isTrue();
        assertThat(registry.getCheck(WorkersHealthCheck.ID).orElseThrow().isLiveness()).isFalse();
    }

    @Test
    void readinessNeedsAHealthyWorkerAndAnswersWhatTheRegistrySays() {
        Exchange none = call(true);
        assertThat(status(none)).isEqualTo(503);
        assertThat(body(none)).containsEntry("status", "not ready")
                .containsEntry("reason", "insufficient healthy workers").containsEntry("healthy_workers", 0);
        assertThat(registry(WorkersHealthCheck.ID)).isEqualTo(HealthCheck.State.DOWN);

        Worker w = workers.add(Worker.builder("http://a:1").build());
        Exchange one = call(true);
        assertThat(status(one)).isEqualTo(200);
        assertThat(body(one)).containsEntry("status", "ready").containsEntry("healthy_workers", 1)
                .containsEntry("total_workers", 1);
        assertThat(registry(WorkersHealthCheck.ID)).isEqualTo(HealthCheck.State.UP);

        w.setHealthy(false);
        assertThat(status(call(true))).isEqualTo(503);
        assertThat(registry(WorkersHealthCheck.ID)).isEqualTo(HealthCheck.State.DOWN);
    }

    @Test
    void readinessInPdModeNeedsAHealthyPrefillAndAHealthyDecode() {
        prefillDecode.set(true);
        workers.add(Worker.builder("http://p:1").role(WorkerRole.PREFILL).build());
        Exchange onlyPrefill = call(true);
        assertThat(status(onlyPrefill)).isEqualTo(503);
        assertThat(body(onlyPrefill)).containsEntry("reason", "needs a healthy prefill and a healthy decode worker");

        workers.add(Worker.builder("http://d:1").role(WorkerRole.DECODE).build());
        assertThat(status(call(true))).isEqualTo(200);
    }

    @Test
    @SuppressWarnings("unchecked")
    void anOpenBreakerIsReportedButDoesNotDecideReadiness() {
        Worker bad = workers.add(Worker.builder("http://bad:1").build());
        workers.add(Worker.builder("http://good:1").build());
        breakers.record(bad, AttemptOutcome.FAILURE);
        breakers.record(bad, AttemptOutcome.FAILURE);

        HealthCheck.Result result = HealthCheckHelper.invoke(camel, WorkersHealthCheck.ID, Map.of()).orElseThrow();
        assertThat(result.getState()).isEqualTo(HealthCheck.State.UP);
        assertThat(result.getDetails()).containsEntry("open_breakers", "http://bad:1");
        Exchange ready = call(true);
        assertThat(status(ready)).isEqualTo(200);
        Map<String, Object> workersCheck = ((List<Map<String, Object>>) body(ready).get("checks")).stream()
                .filter(c -> WorkersHealthCheck.ID.equals(c.get("id"))).findFirst().orElseThrow();
        assertThat(workersCheck).containsEntry("state", "UP").containsEntry("open_breakers", "http://bad:1");
    }

    @Test
    void drainingFailsReadinessWithShuttingDownWhileLivenessStaysUp() {
        workers.add(Worker.builder("http://a:1").build());
        draining.set(true);

        Exchange ready = call(true);
        assertThat(status(ready)).isEqualTo(503);
        assertThat(body(ready)).containsEntry("reason", ListenerHealthCheck.SHUTTING_DOWN);
        assertThat(registry(ListenerHealthCheck.ID)).isEqualTo(HealthCheck.State.DOWN);
        Exchange live = call(false);
        assertThat(status(live)).isEqualTo(200);
        assertThat(live.getMessage().getBody(String.class)).isEqualTo("OK");
    }

    @Test
    void aServerThatStoppedListeningIsNotReady() {
        workers.add(Worker.builder("http://a:1").build());
        server.stop();

        Exchange ready = call(true);
        assertThat(status(ready)).isEqualTo(503);
        assertThat(body(ready)).containsEntry("reason", "the HTTP server is not listening");
    }

    @Test
    void kvSubscriptionsMustBeLiveForEveryWorkerThatPublishes() throws Exception {
        KvSubscriptionsHealthCheck kv = new KvSubscriptionsHealthCheck(workers, KvSettings.defaults());
        kv.setCamelContext(camel);
        workers.add(Worker.builder("http://quiet:1").build());
        assertThat(kv.call().getState()).as("nobody publishes").isEqualTo(HealthCheck.State.UP);

        Worker w = workers.add(Worker.builder("http://a:1").kvEventsEndpoint("tcp://a:5557").build());
        HealthCheck.Result missing = kv.call();
        assertThat(missing.getState()).isEqualTo(HealthCheck.State.DOWN);
        assertThat(missing.getDetails()).containsEntry("without_subscription", "http://a:1")
                .containsEntry("configured_subscriptions", 1);

        camel.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("direct:kv-standin").routeId(KvRouteManager.routeId(w)).log("event");
            }
        });
        assertThat(kv.call().getState()).isEqualTo(HealthCheck.State.UP);
        camel.getRouteController().stopRoute(KvRouteManager.routeId(w));
        assertThat(kv.call().getState()).as("a stopped subscription is not live").isEqualTo(HealthCheck.State.DOWN);
    }

    @Test
    void livenessFailsWhileAnEventLoopIsStalledAndRecovers() {
        List<EventExecutor> executors = new ArrayList<>();
        loops.forEach(executors::add);
        CountDownLatch release = new CountDownLatch(1);
        executors.get(0).execute(() -> {
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });

        nanos.addAndGet(Duration.ofSeconds(11).toNanos());
        await().atMost(Duration.ofSeconds(10)).until(() -> heartbeat.stalled(Duration.ofSeconds(10)).equals(List.of(0)));
        Exchange stalled = call(false);
        assertThat(status(stalled)).isEqualTo(503);
        assertThat(body(stalled)).containsEntry("status", "not live");
        assertThat((String) body(stalled).get("reason")).startsWith("event loops without a heartbeat for over 10 s: loop 0");
        assertThat(registry(EventLoopsHealthCheck.ID)).isEqualTo(HealthCheck.State.DOWN);

        release.countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> heartbeat.stalled(Duration.ofSeconds(10)).isEmpty());
        assertThat(status(call(false))).isEqualTo(200);
        assertThat(registry(EventLoopsHealthCheck.ID)).isEqualTo(HealthCheck.State.UP);
    }

    @Test
    void withTheRegistryDisabledTheStepsStillCallTheChecks() {
        HealthCheckRegistry.get(camel).setEnabled(false);
        assertThat(status(call(true))).isEqualTo(503);
        workers.add(Worker.builder("http://a:1").build());
        assertThat(status(call(true))).isEqualTo(200);
    }

    @Test
    void rejectsAStallLimitTheHeartbeatCannotMeet() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new EventLoopsHealthCheck(heartbeat,
                Duration.ofSeconds(1))).hasMessage("event-loop stall limit must be at least 2 s, was PT1S");
    }
}
