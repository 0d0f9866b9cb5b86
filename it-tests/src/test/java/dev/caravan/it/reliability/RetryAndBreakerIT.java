package dev.caravan.it.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.caravan.it.GatewayHarness;
import dev.caravan.it.SimFleetExtension;
import dev.caravan.policies.Worker;
import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.reliability.BreakerState;
import dev.caravan.processors.reliability.ReliabilityFeature;
import dev.caravan.processors.reliability.WorkerBreakers;
import dev.caravan.sim.Faults;

/**
 * SGLang's breaker and retry cases ({@code sgl-model-gateway/tests/reliability/circuit_breaker_test.rs} and
 * {@code retries_test.rs}), and a 4xx that leaves the breaker alone (what SGLang #25811 asks for).
 */
class RetryAndBreakerIT {

    @RegisterExtension
    static final SimFleetExtension SIMS = new SimFleetExtension(2, b -> b.decodeMsPerToken(1).defaultMaxTokens(2));

    private static final String BODY = "{\"prompt\":\"hello\"}";

    @AfterEach
    void clearFaults() {
        SIMS.resetFaults();
    }

    private static GatewayConfig config() {
        return GatewayHarness.config(SIMS.urls()).with(CoreFlags.DECISION_HEADERS, "true")
                .with(CoreFlags.POLICY_NAME, "round_robin")
                .with(ReliabilityFeature.CB_FAILURE_THRESHOLD, "3");
    }

    private static void fail(int engine, int status) {
        SIMS.engine(engine).setFaults(Faults.NONE.merge(Map.of("error_rate", 1.0, "error_status", status)));
    }

    @Test
    void aFailingWorkerIsRetriedElsewhereAndItsBreakerStopsTrafficAfterThreeFailures() {
        fail(0, 500);
        long before = SIMS.engine(0).stats().requests();
        try (GatewayHarness gw = GatewayHarness.start(config())) {
            for (int i = 0; i < 20; i++) {
                HttpResponse<String> r = gw.client().postJson("/v1/completions", BODY);
                assertThat(r.statusCode()).as("request %d", i).isEqualTo(200);
                assertThat(r.headers().firstValue("X-Caravan-Worker")).contains(SIMS.engine(1).url());
            }
            Worker bad = gw.workers().findByUrl(SIMS.engine(0).url()).orElseThrow();
            assertThat(gw.gateway().beans().reliability().breakers().state(bad)).isEqualTo(BreakerState.OPEN);
            assertThat(SIMS.engine(0).stats().requests() - before).as("attempts that reached the failing worker")
                    .isEqualTo(3);
            assertThat(gw.gateway().beans().meterRegistry().find("caravan.retries").tag("reason", "500").counter()
                    .count()).isEqualTo(3);
            assertThat(cbState(gw, bad)).as("open breaker").isEqualTo(1.0);
            Worker good = gw.workers().findByUrl(SIMS.engine(1).url()).orElseThrow();
            assertThat(cbState(gw, good)).as("closed breaker").isEqualTo(0.0);
            String scrape = gw.client().get("/metrics").body();
            assertThat(scrape).contains("caravan_worker_cb_state{worker=\"" + bad.url() + "\"} 1.0")
                    .contains("caravan_worker_cb_state{worker=\"" + good.url() + "\"} 0.0");
        }
    }

    /** The {@code caravan_worker_cb_state} gauge of one worker: 0 closed, 1 open, 2 half-open. */
    private static double cbState(GatewayHarness gw, Worker w) {
        return gw.gateway().beans().meterRegistry().get("caravan.worker.cb.state").tag("worker", w.url()).gauge()
                .value();
    }

    @Test
    void withRetriesDisabledTheFirst500IsReturned() {
        fail(0, 500);
        try (GatewayHarness gw = GatewayHarness.start(config().with(ReliabilityFeature.DISABLE_RETRIES, "true"))) {
            HttpResponse<String> first = gw.client().postJson("/v1/completions", BODY);
            assertThat(first.statusCode()).isEqualTo(500);
            assertThat(first.body()).contains("injected fault");
        }
    }

    @Test
    void attemptsAreCappedAndTheLastAnswerIsRelayed() {
        fail(0, 503);
        fail(1, 503);
        long before = SIMS.engine(0).stats().requests() + SIMS.engine(1).stats().requests();
        try (GatewayHarness gw = GatewayHarness.start(config().with(ReliabilityFeature.RETRY_MAX_RETRIES, "3")
                .with(ReliabilityFeature.RETRY_INITIAL_BACKOFF_MS, "1"))) {
            HttpResponse<String> r = gw.client().postJson("/v1/completions", BODY);
            assertThat(r.statusCode()).isEqualTo(503);
            assertThat(r.body()).contains("injected fault");
            long attempts = SIMS.engine(0).stats().requests() + SIMS.engine(1).stats().requests() - before;
            assertThat(attempts).isEqualTo(3);
            assertThat(gw.gateway().beans().meterRegistry().find("caravan.retries.exhausted").counter().count())
                    .isZero(); // the last attempt's 503 was relayed as the answer, not given up on
            WorkerBreakers breakers = gw.gateway().beans().reliability().breakers();
            assertThat(gw.workers().all()).as("503 is back-pressure, neutral")
                    .allSatisfy(w -> assertThat(breakers.state(w)).isEqualTo(BreakerState.CLOSED));
        }
    }

    @Test
    void clientErrorsAreNeutralAndNeverTripABreaker() {
        fail(0, 400);
        try (GatewayHarness gw = GatewayHarness.start(config())) {
            int rejected = 0;
            for (int i = 0; i < 30; i++) {
                int status = gw.client().postJson("/v1/completions", BODY).statusCode();
                rejected += status == 400 ? 1 : 0;
            }
            Worker w = gw.workers().findByUrl(SIMS.engine(0).url()).orElseThrow();
            assertThat(rejected).as("400s pass through and are not retried").isEqualTo(15);
            assertThat(gw.gateway().beans().reliability().breakers().state(w)).isEqualTo(BreakerState.CLOSED);
            assertThat(gw.gateway().beans().meterRegistry().find("caravan.worker.cb.outcomes")
                    .tags("worker", w.url(), "outcome", "neutral").counter().count()).isEqualTo(15);
        }
    }

    @Test
    void anOpenBreakerLetsRequestsThroughAgainAfterItsTimeoutAndClosesOnSuccess() {
        fail(0, 502);
        try (GatewayHarness gw = GatewayHarness.start(config().with(ReliabilityFeature.CB_TIMEOUT_DURATION_SECS, "1")
                .with(ReliabilityFeature.CB_SUCCESS_THRESHOLD, "2"))) {
            Worker w = gw.workers().findByUrl(SIMS.engine(0).url()).orElseThrow();
            WorkerBreakers breakers = gw.gateway().beans().reliability().breakers();
            for (int i = 0; i < 6; i++) {
                assertThat(gw.client().postJson("/v1/completions", BODY).statusCode()).isEqualTo(200);
            }
            assertThat(breakers.state(w)).isEqualTo(BreakerState.OPEN);
            SIMS.resetFaults();

            await().atMost(Duration.ofSeconds(5)).until(w::isAvailable); // half-open once the second has passed
            assertThat(breakers.state(w)).isEqualTo(BreakerState.HALF_OPEN);
            assertThat(cbState(gw, w)).as("half-open breaker").isEqualTo(2.0);
            await().atMost(Duration.ofSeconds(5)).until(() -> {
                gw.client().postJson("/v1/completions", BODY);
                return breakers.state(w) == BreakerState.CLOSED;
            });
            assertThat(cbState(gw, w)).isEqualTo(0.0);
        }
    }
}
