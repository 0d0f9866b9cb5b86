package dev.caravan.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import org.apache.camel.CamelContext;
import org.apache.camel.ServiceStatus;
import org.apache.camel.component.resilience4j.ResilienceProcessor;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.Test;

import dev.caravan.policies.Worker;
import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.control.WorkerControlRoutes;
import dev.caravan.processors.reliability.AttemptOutcome;
import dev.caravan.processors.reliability.ControlCallBreaker;
import dev.caravan.processors.reliability.ReliabilityFeature;

/** Every worker gets a control route from control.camel.yaml's template, on its own breaker; leaving removes both. */
class ControlRoutesWiringTest {

    private static GatewayConfig config() {
        return GatewayConfig.defaults().with(CoreFlags.HOST, "127.0.0.1").with(CoreFlags.PORT, "0")
                .with(CoreFlags.LOAD_CHECK_INTERVAL, "0")
                .with(CoreFlags.WORKER_URLS, "http://worker_a:8000")
                .with(ReliabilityFeature.CB_FAILURE_THRESHOLD, "2");
    }

    @Test
    void eachWorkerGetsAControlRouteOnTheBreakerItsAttemptsFeed() throws Exception {
        CamelContext camel = new DefaultCamelContext();
        CaravanGateway gateway = CaravanGateway.install(camel, config());
        camel.start();
        try {
            Worker a = gateway.workers().findByUrl("http://worker_a:8000").orElseThrow();
            String route = WorkerControlRoutes.routeId(a);
            await().atMost(Duration.ofSeconds(10)).until(() -> camel.getRoute(route) != null);
            assertThat(camel.getRouteController().getRouteStatus(route)).isEqualTo(ServiceStatus.Started);
            assertThat(camel.getRoute(route).getEndpoint().getEndpointUri()).isEqualTo("direct://" + route);

            CircuitBreaker bean = camel.getProcessor(route + "-breaker", ResilienceProcessor.class).getCircuitBreaker();
            assertThat(bean).isInstanceOf(ControlCallBreaker.class);
            assertThat(camel.getRegistry().lookupByName(WorkerControlRoutes.breakerBean(a)))
                    .as("the breaker is the route's own bean: the context's registry is not written at run time")
                    .isNull();
            gateway.beans().reliability().breakers().record(a, AttemptOutcome.FAILURE);
            gateway.beans().reliability().breakers().record(a, AttemptOutcome.FAILURE);
            assertThat(bean.getState()).as("the route's breaker is the one attempts feed")
                    .isEqualTo(CircuitBreaker.State.OPEN);

            Worker b = gateway.workers().add(Worker.builder("http://worker_b:8000").build());
            await().atMost(Duration.ofSeconds(10)).until(() -> camel.getRoute(WorkerControlRoutes.routeId(b)) != null);
            gateway.workers().remove(a.id());
            await().atMost(Duration.ofSeconds(10)).until(() -> camel.getRoute(route) == null);
            assertThat(gateway.beans().controlRoutes().routeIds()).containsExactly(WorkerControlRoutes.routeId(b));
        } finally {
            camel.stop();
        }
    }
}
