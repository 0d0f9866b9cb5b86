package dev.caravan.it.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.lang.management.ManagementFactory;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.Set;

import javax.management.MBeanServer;
import javax.management.ObjectName;

import org.apache.camel.CamelContext;
import org.apache.camel.health.HealthCheck;
import org.apache.camel.health.HealthCheckHelper;
import org.apache.camel.main.Main;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.caravan.app.GatewayMain;
import dev.caravan.gateway.CaravanGateway;
import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.health.HealthFeature;
import dev.caravan.it.GatewayClient;
import dev.caravan.it.GatewayHarness;
import dev.caravan.it.SimFleetExtension;
import dev.caravan.processors.health.WorkersHealthCheck;
import dev.caravan.sim.Faults;

/**
 * Camel's health-check registry and the gateway's probe endpoints give the same verdicts while the workers fail and
 * recover: the registry's whole readiness (Camel's own context, routes and consumers checks included), the gateway's
 * checks, the JMX health MBean and {@code GET /readiness}; and liveness, which worker failure does not touch.
 */
class HealthRegistryIT {

    @RegisterExtension
    static final SimFleetExtension SIMS = new SimFleetExtension(2, b -> b.decodeMsPerToken(1).defaultMaxTokens(2));

    /** Every place that gives a readiness or liveness verdict, side by side. */
    private record Verdicts(boolean registryReady, boolean workersReady, boolean jmxReady, int readiness,
                            boolean registryLive, boolean jmxLive, int liveness) {

        boolean agree(boolean ready) {
            return registryReady == ready && workersReady == ready && jmxReady == ready
                    && readiness == (ready ? 200 : 503)
                    && registryLive && jmxLive && liveness == 200;
        }
    }

    private static Verdicts verdicts(CamelContext camel, GatewayClient client) throws Exception {
        MBeanServer jmx = ManagementFactory.getPlatformMBeanServer();
        Set<ObjectName> health = jmx.queryNames(new ObjectName("org.apache.camel:context=" + camel.getName()
                + ",type=health,*"), null);
        assertThat(health).as("Camel's health MBean").hasSize(1);
        ObjectName mbean = health.iterator().next();
        HealthCheck.State workers = HealthCheckHelper.invoke(camel, WorkersHealthCheck.ID, Map.of()).orElseThrow()
                .getState();
        return new Verdicts(HealthCheckHelper.isResultsUp(HealthCheckHelper.invokeReadiness(camel), true),
                workers == HealthCheck.State.UP, (Boolean) jmx.getAttribute(mbean, "HealthyReadiness"),
                client.get("/readiness").statusCode(),
                HealthCheckHelper.isResultsUp(HealthCheckHelper.invokeLiveness(camel), false),
                (Boolean) jmx.getAttribute(mbean, "HealthyLiveness"), client.get("/liveness").statusCode());
    }

    @Test
    void registryAndProbeEndpointsAgreeThroughWorkerFailureAndRecovery() throws Exception {
        Main main = GatewayMain.create(GatewayHarness.config(SIMS.urls())
                .with(CoreFlags.LOAD_CHECK_INTERVAL, "0")
                .with(HealthFeature.HEALTH_CHECK_INTERVAL_SECS, "1")
                .with(HealthFeature.HEALTH_FAILURE_THRESHOLD, "1")
                .with(HealthFeature.HEALTH_SUCCESS_THRESHOLD, "1"), Map.of());
        main.start();
        try {
            CamelContext camel = main.getCamelContext();
            GatewayClient client = new GatewayClient("http://127.0.0.1:" + CaravanGateway.port(camel));
            assertThat(HealthCheckHelper.invoke(camel, "context", Map.of())).as("Camel's own checks are on").isPresent();

            await().atMost(Duration.ofSeconds(10)).until(() -> verdicts(camel, client).agree(true));

            for (int i = 0; i < 2; i++) {
                SIMS.engine(i).setFaults(Faults.NONE.merge(Map.of("health_failing", true)));
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> verdicts(camel, client).agree(false));
            HttpResponse<String> unready = client.get("/readiness");
            assertThat(GatewayClient.parse(unready.body()).path("reason").asText())
                    .isEqualTo("insufficient healthy workers");
            assertThat(client.get("/liveness").body()).isEqualTo("OK");

            SIMS.engine(1).resetFaults();
            await().atMost(Duration.ofSeconds(20)).until(() -> verdicts(camel, client).agree(true));
            assertThat(GatewayClient.parse(client.get("/readiness").body()).path("healthy_workers").asInt())
                    .isEqualTo(1);
        } finally {
            SIMS.resetFaults();
            main.stop();
        }
    }
}
