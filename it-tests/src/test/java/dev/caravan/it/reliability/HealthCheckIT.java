package dev.caravan.it.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import com.fasterxml.jackson.databind.JsonNode;
import io.micrometer.core.instrument.Counter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.caravan.it.ChaosReport;
import dev.caravan.it.GatewayClient;
import dev.caravan.it.GatewayHarness;
import dev.caravan.it.SimFleetExtension;
import dev.caravan.it.StubEngine;
import dev.caravan.policies.Worker;
import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.health.HealthFeature;
import dev.caravan.sim.Faults;

/** Health checks against live engines: hysteresis on a flapping probe, per-worker overrides, /health_generate. */
class HealthCheckIT {

    @RegisterExtension
    static final SimFleetExtension SIMS = new SimFleetExtension(2, b -> b.decodeMsPerToken(2).defaultMaxTokens(2));

    /**
     * The stub answers its probes F S F F F S S S F (then S): a checker without hysteresis would flip 5 times; with
     * failure threshold 3 and success threshold 2 the worker turns unhealthy at probe 5 and healthy at probe 7, and
     * never otherwise.
     */
    @Test
    void hysteresisKeepsAFlappingWorkerFromFlipFlopping() {
        String pattern = "FSFFFSSSF";
        AtomicInteger probes = new AtomicInteger();
        AtomicReference<Worker> worker = new AtomicReference<>();
        List<Boolean> healthSeenAtProbe = new CopyOnWriteArrayList<>();
        try (StubEngine stub = StubEngine.start(req -> {
            if (!req.path().equals("/health")) {
                req.response().setStatusCode(404).end();
                return;
            }
            int i = probes.getAndIncrement();
            Worker w = worker.get();
            healthSeenAtProbe.add(w == null || w.isHealthy()); // the state the previous probes produced
            boolean ok = i >= pattern.length() || pattern.charAt(i) == 'S';
            req.response().setStatusCode(ok ? 200 : 503).end();
        });
             GatewayHarness gw = GatewayHarness.start(GatewayHarness.config(List.of(stub.url()))
                     .with(HealthFeature.HEALTH_CHECK_INTERVAL_SECS, "1")
                     .with(HealthFeature.HEALTH_FAILURE_THRESHOLD, "3")
                     .with(HealthFeature.HEALTH_SUCCESS_THRESHOLD, "2"))) {
            worker.set(gw.workers().all().get(0));
            await().atMost(Duration.ofSeconds(30)).until(() -> probes.get() > pattern.length());

            // state before probe i+1 = after probe i:  F S F F F S S S F
            assertThat(healthSeenAtProbe.subList(1, pattern.length() + 1))
                    .containsExactly(true, true, true, true, false, false, true, true, true);
            double toUnhealthy = transitions(gw, "unhealthy");
            double toHealthy = transitions(gw, "healthy");
            assertThat(toUnhealthy).isEqualTo(1);
            assertThat(toHealthy).isEqualTo(1);
            int naive = 0;
            boolean up = true;
            for (char c : pattern.toCharArray()) {
                if ((c == 'S') != up) {
                    naive++;
                    up = c == 'S';
                }
            }
            Map<String, Object> figures = new LinkedHashMap<>();
            figures.put("probes", pattern);
            figures.put("transitions", (int) (toUnhealthy + toHealthy));
            figures.put("transitions_without_hysteresis", naive);
            ChaosReport.record("flapping-health", figures);
        }
    }

    private static double transitions(GatewayHarness gw, String to) {
        Counter c = gw.gateway().beans().meterRegistry().find("caravan.worker.health.transitions").tag("to", to)
                .counter();
        return c == null ? 0 : c.count();
    }

    /**
     * A worker registered with its own health settings (interval 1 s, one failure) is probed on them while the gateway's
     * default interval is 60 s; once it fails, requests avoid it; /health_generate and /readiness follow.
     */
    @Test
    void perWorkerOverridesUnhealthyWorkersAndHealthGenerate() throws Exception {
        try (GatewayHarness gw = GatewayHarness.start(GatewayHarness.config(List.of(SIMS.urls().get(0)))
                .with(CoreFlags.DECISION_HEADERS, "true"))) {
            HttpResponse<String> added = gw.client().postJson("/workers", "{\"url\":\"" + SIMS.urls().get(1)
                    + "\",\"health_check_interval_secs\":1,\"health_failure_threshold\":1,"
                    + "\"health_success_threshold\":1}");
            assertThat(added.statusCode()).isEqualTo(202);
            Worker flaky = gw.workers().findByUrl(SIMS.urls().get(1)).orElseThrow();
            Worker steady = gw.workers().findByUrl(SIMS.urls().get(0)).orElseThrow();

            HttpResponse<String> generate = gw.client().get("/health_generate");
            assertThat(generate.statusCode()).isEqualTo(200);
            assertThat(GatewayClient.parse(generate.body()).get("status").asText()).isEqualTo("ok");

            SIMS.engine(1).setFaults(Faults.NONE.merge(Map.of("health_failing", true)));
            await().atMost(Duration.ofSeconds(10)).until(() -> !flaky.isHealthy());
            assertThat(steady.isHealthy()).as("the 60 s default has not probed it again").isTrue();
            for (int i = 0; i < 6; i++) {
                HttpResponse<String> r = gw.client().postJson("/v1/completions", "{\"prompt\":\"hi\"}");
                assertThat(r.statusCode()).isEqualTo(200);
                assertThat(r.headers().firstValue("X-Caravan-Worker")).contains(steady.url());
            }
            assertThat(gw.client().get("/readiness").statusCode()).isEqualTo(200);

            SIMS.engine(1).resetFaults();
            await().atMost(Duration.ofSeconds(10)).until(flaky::isHealthy);

            // /health_generate really generates: a failing engine makes it 503 (its probes off, so it stays selectable)
            gw.workers().remove(steady.id());
            assertThat(gw.client().putJson("/workers/" + flaky.id(), "{\"disable_health_check\":true}").statusCode())
                    .isEqualTo(202);
            SIMS.engine(1).setFaults(Faults.NONE.merge(Map.of("health_failing", true)));
            HttpResponse<String> failed = gw.client().get("/health_generate");
            assertThat(failed.statusCode()).isEqualTo(503);
            JsonNode body = GatewayClient.parse(failed.body());
            assertThat(body.get("status").asText()).isEqualTo("failed");
            assertThat(body.get("workers").get(0).get("status").asInt()).isEqualTo(503);
        } finally {
            SIMS.resetFaults();
        }
    }
}
