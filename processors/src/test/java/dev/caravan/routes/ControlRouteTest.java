package dev.caravan.routes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;

import org.apache.camel.component.mock.MockEndpoint;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.caravan.policies.Worker;
import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.control.ControlCall;
import dev.caravan.processors.control.ControlResult;
import dev.caravan.processors.control.WorkerControlRoutes;
import dev.caravan.processors.reliability.BreakerState;
import dev.caravan.processors.reliability.ReliabilityFeature;

/**
 * The control plane's fan-out ({@code call-workers}) and a worker's control route (the {@code worker-control} template
 * of control.camel.yaml) with its circuitBreaker EIP on the worker's own breaker, failure threshold 2: each failed call
 * counts, a successful one is neutral, and once the breaker is open the route refuses the call without calling the
 * engine. Every call the fan-out hands to a control route is copied to {@code mock:handed-over} (advised in before the
 * {@code toD}).
 */
class ControlRouteTest extends GatewayRouteTestSupport {

    private static FakeEngine engine;

    @BeforeAll
    static void startEngine() throws Exception {
        engine = FakeEngine.start();
    }

    @AfterAll
    static void stopEngine() throws Exception {
        engine.close();
    }

    @Override
    protected GatewayConfig config() {
        return baseConfig()
                .with(CoreFlags.WORKER_URLS, engine.url())
                .with(ReliabilityFeature.CB_FAILURE_THRESHOLD, "2");
    }

    @Override
    protected void advise() throws Exception {
        adviceWith("call-workers", r -> r.weaveByToUri("direct:worker-control-*").before().to("mock:handed-over"));
    }

    private Worker worker() throws Exception {
        Worker w = gateway.workers().findByUrl(engine.url()).orElseThrow();
        await().atMost(Duration.ofSeconds(10)).until(() -> context.getRoute(WorkerControlRoutes.routeId(w)) != null);
        return w;
    }

    private ControlResult getLoad(Worker w) {
        List<?> results = template.requestBody("direct:call-workers", List.of(new ControlCall(w, "GET", "/get_load",
                null)), List.class);
        assertThat(results).hasSize(1);
        return (ControlResult) results.get(0);
    }

    @Test
    void theBreakerOpensAfterTwoFailedCallsAndTheThirdNeverReachesTheEngine() throws Exception {
        engine.answer(FakeEngine.json(500, "{\"error\":\"broken\"}"));
        Worker w = worker();
        MockEndpoint handedOver = getMockEndpoint("mock:handed-over");
        handedOver.expectedMessageCount(3);

        ControlResult first = getLoad(w);
        ControlResult second = getLoad(w);
        ControlResult third = getLoad(w);

        handedOver.assertIsSatisfied();
        assertThat(List.of(first.status(), second.status())).containsExactly(500, 500);
        assertThat(first.body()).isEqualTo("{\"error\":\"broken\"}");
        assertThat(third.status()).isEqualTo(-1);
        assertThat(third.error()).isEqualTo("circuit breaker open");
        assertThat(engine.requests()).containsExactly("GET /get_load", "GET /get_load");
        assertThat(gateway.beans().reliability().breakers().state(w)).isEqualTo(BreakerState.OPEN);
    }

    @Test
    void aSuccessfulCallBetweenTwoFailuresDoesNotKeepTheBreakerClosed() throws Exception {
        engine.answer(FakeEngine.json(500, "{\"error\":\"broken\"}"));
        Worker w = worker();

        assertThat(getLoad(w).status()).isEqualTo(500);
        engine.answer(FakeEngine.json(200, "{\"num_running_reqs\":0}"));
        assertThat(getLoad(w).status()).isEqualTo(200);
        engine.answer(FakeEngine.json(500, "{\"error\":\"broken\"}"));
        assertThat(getLoad(w).status()).isEqualTo(500);

        assertThat(gateway.beans().reliability().breakers().state(w)).isEqualTo(BreakerState.OPEN);
        assertThat(getLoad(w).error()).isEqualTo("circuit breaker open");
        assertThat(engine.requests()).containsExactly("GET /get_load");
    }
}
