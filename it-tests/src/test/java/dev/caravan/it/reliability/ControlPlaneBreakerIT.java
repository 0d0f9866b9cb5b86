package dev.caravan.it.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.lang.management.ManagementFactory;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import javax.management.MBeanServer;
import javax.management.ObjectName;

import com.fasterxml.jackson.databind.JsonNode;
import io.vertx.core.http.HttpServerRequest;
import org.apache.camel.CamelContext;
import org.apache.camel.health.HealthCheck;
import org.apache.camel.health.HealthCheckHelper;
import org.apache.camel.main.Main;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.caravan.app.GatewayMain;
import dev.caravan.gateway.CaravanGateway;
import dev.caravan.it.GatewayClient;
import dev.caravan.it.GatewayHarness;
import dev.caravan.it.SimFleetExtension;
import dev.caravan.it.StubEngine;
import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerRegistry;
import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.control.WorkerControlRoutes;
import dev.caravan.processors.feature.Wiring;
import dev.caravan.processors.health.WorkersHealthCheck;
import dev.caravan.processors.reliability.BreakerState;
import dev.caravan.processors.reliability.ReliabilityFeature;
import dev.caravan.processors.reliability.WorkerBreakers;

/**
 * A worker whose control-plane calls fail (its load polls answer 500 while generations and health probes still work)
 * opens its circuit breaker through the circuitBreaker EIP of its control route, with no client request involved; the
 * breaker is the one the data plane uses, so routing avoids the worker; Camel's JMX (the EIP's processor MBean) and
 * Camel's health registry report it; and once the engine answers again, the breaker half-opens, the worker gets
 * traffic again and its first good answer closes the breaker, which JMX and health follow.
 */
class ControlPlaneBreakerIT {

    @RegisterExtension
    static final SimFleetExtension SIMS = new SimFleetExtension(1, b -> b.decodeMsPerToken(1).defaultMaxTokens(2));

    private static final String COMPLETION = "{\"id\":\"c\",\"object\":\"text_completion\",\"model\":\"m\","
            + "\"choices\":[{\"index\":0,\"text\":\"ok\",\"finish_reason\":\"stop\"}],"
            + "\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":1,\"total_tokens\":2}}";

    private final AtomicBoolean controlBroken = new AtomicBoolean(true);
    private final AtomicInteger generations = new AtomicInteger();

    /** An engine whose generations and /health work, and whose control endpoints fail while controlBroken. */
    private void engine(HttpServerRequest req) {
        String path = req.path();
        if (path.equals("/get_load") || path.equals("/metrics") || path.equals("/flush_cache")) {
            if (controlBroken.get()) {
                req.response().setStatusCode(500).end("{\"error\":\"scheduler unreachable\"}");
            } else {
                req.response().setStatusCode(path.equals("/get_load") ? 404 : 200).end();
            }
        } else if (path.equals("/v1/completions")) {
            generations.incrementAndGet();
            req.body().onSuccess(b -> req.response().putHeader("Content-Type", "application/json").end(COMPLETION));
        } else {
            req.response().setStatusCode(200).end("ok");
        }
    }

    private static String breakerMBeanState(CamelContext camel, Worker w) throws Exception {
        MBeanServer jmx = ManagementFactory.getPlatformMBeanServer();
        Set<ObjectName> names = jmx.queryNames(new ObjectName("org.apache.camel:context=" + camel.getName()
                + ",type=processors,name=\"" + WorkerControlRoutes.routeId(w) + "-breaker\""), null);
        assertThat(names).as("the control route's circuitBreaker EIP is an MBean").hasSize(1);
        return (String) jmx.getAttribute(names.iterator().next(), "CircuitBreakerState");
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> workersHealth(CamelContext camel) {
        HealthCheck.Result r = HealthCheckHelper.invokeReadiness(camel, "full").stream()
                .filter(x -> WorkersHealthCheck.ID.equals(x.getCheck().getId())).findFirst().orElseThrow();
        assertThat(r.getState()).as("an open breaker does not make the gateway unready").isEqualTo(HealthCheck.State.UP);
        return r.getDetails();
    }

    @Test
    void failingControlCallsOpenTheWorkersBreakerInItsRouteAndCamelsToolingShowsIt() throws Exception {
        try (StubEngine stub = StubEngine.start(this::engine)) {
            Main main = GatewayMain.create(GatewayHarness.config(java.util.List.of(SIMS.urls().get(0), stub.url()))
                    .with(CoreFlags.DECISION_HEADERS, "true")
                    .with(CoreFlags.POLICY_NAME, "round_robin")
                    .with(CoreFlags.LOAD_CHECK_INTERVAL, "1")
                    .with(ReliabilityFeature.CB_FAILURE_THRESHOLD, "4")
                    .with(ReliabilityFeature.CB_SUCCESS_THRESHOLD, "1")
                    .with(ReliabilityFeature.CB_TIMEOUT_DURATION_SECS, "3"), Map.of());
            main.start();
            try {
                CamelContext camel = main.getCamelContext();
                GatewayClient client = new GatewayClient("http://127.0.0.1:" + CaravanGateway.port(camel));
                WorkerBreakers breakers = camel.getRegistry().lookupByNameAndType(ReliabilityFeature.WORKER_BREAKERS,
                        WorkerBreakers.class);
                Worker flaky = camel.getRegistry().lookupByNameAndType(Wiring.WORKER_REGISTRY, WorkerRegistry.class)
                        .findByUrl(stub.url()).orElseThrow();

                // four failed load polls (two calls a second), no client request at all
                await().atMost(Duration.ofSeconds(20)).until(() -> breakers.state(flaky) == BreakerState.OPEN);
                assertThat(generations.get()).isZero();
                await().atMost(Duration.ofSeconds(10)).until(() -> "OPEN".equals(breakerMBeanState(camel, flaky)));
                await().atMost(Duration.ofSeconds(10))
                        .until(() -> stub.url().equals(workersHealth(camel).get("open_breakers")));
                for (int i = 0; i < 4; i++) {
                    HttpResponse<String> r = client.postJson("/v1/completions", "{\"prompt\":\"hi\",\"max_tokens\":2}");
                    assertThat(r.statusCode()).isEqualTo(200);
                    assertThat(r.headers().firstValue("X-Caravan-Worker")).as("routing avoids the open breaker")
                            .contains(SIMS.urls().get(0));
                }
                JsonNode flush = GatewayClient.parse(client.postJson("/flush_cache", "").body());
                assertThat(flush.path("failed").toString()).contains(stub.url());
                assertThat(generations.get()).isZero();

                // the engine recovers: after the open timeout the breaker half-opens, the worker is selectable again,
                // and its first successful generation closes the breaker (control successes alone never would)
                controlBroken.set(false);
                await().atMost(Duration.ofSeconds(30)).until(() -> {
                    client.postJson("/v1/completions", "{\"prompt\":\"hi\",\"max_tokens\":2}");
                    return breakers.state(flaky) == BreakerState.CLOSED;
                });
                assertThat(generations.get()).isPositive();
                await().atMost(Duration.ofSeconds(10)).until(() -> "CLOSED".equals(breakerMBeanState(camel, flaky)));
                assertThat(workersHealth(camel)).containsEntry("open_breakers", "")
                        .containsEntry("half_open_breakers", "");
            } finally {
                main.stop();
            }
        }
    }
}
