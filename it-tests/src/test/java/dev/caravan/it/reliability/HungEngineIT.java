package dev.caravan.it.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.caravan.it.ChaosReport;
import dev.caravan.it.GatewayClient;
import dev.caravan.it.GatewayHarness;
import dev.caravan.it.SimFleetExtension;
import dev.caravan.it.StreamRecorder;
import dev.caravan.policies.Worker;
import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.forward.ForwardFeature;
import dev.caravan.processors.reliability.BreakerState;
import dev.caravan.processors.reliability.ReliabilityFeature;
import dev.caravan.sim.Faults;

/**
 * Chaos: an engine accepts requests and never answers. Each attempt on it fails — a streamed one after
 * --stream-idle-timeout-secs, a non-streamed one after --non-stream-attempt-timeout-secs — and is retried on another
 * engine, so every client still gets its whole answer; its breaker opens after the threshold, and later requests no
 * longer reach it.
 */
class HungEngineIT {

    @RegisterExtension
    static final SimFleetExtension SIMS = new SimFleetExtension(4, b -> b.decodeMsPerToken(5).defaultMaxTokens(8));

    /**
     * A cold JVM on a loaded machine can take seconds for its first requests, which a 2-second limit would count as
     * failures: warm the JIT up on a gateway of its own first, so the measured one starts fresh.
     */
    @BeforeAll
    static void warmUp() throws Exception {
        try (GatewayHarness warm = GatewayHarness.start(GatewayHarness.config(SIMS.urls()));
             StreamRecorder client = new StreamRecorder(warm.port())) {
            for (int i = 0; i < 4; i++) {
                client.send(40, "/v1/chat/completions", body());
                client.send(40, "/v1/chat/completions", body(false));
                assertThat(client.awaitAll(Duration.ofSeconds(60))).isTrue();
            }
        }
    }

    @Test
    void requestsToAHungEngineTimeOutRetryElsewhereAndItsBreakerOpens() throws Exception {
        try (GatewayHarness gw = GatewayHarness.start(GatewayHarness.config(SIMS.urls())
                .with(CoreFlags.DECISION_HEADERS, "true")
                .with(CoreFlags.POLICY_NAME, "round_robin")
                .with(ForwardFeature.STREAM_IDLE_TIMEOUT_SECS, "2")
                .with(CoreFlags.REQUEST_TIMEOUT_SECS, "30")
                .with(ReliabilityFeature.CB_FAILURE_THRESHOLD, "3"));
             StreamRecorder client = new StreamRecorder(gw.port())) {
            Worker hung = gw.workers().findByUrl(SIMS.engine(2).url()).orElseThrow();
            SIMS.engine(2).setFaults(Faults.NONE.merge(Map.of("hang", true)));

            long hungBefore = SIMS.engine(2).stats().hung(); // the engine lives for the whole class
            long start = System.nanoTime();
            List<StreamRecorder.Stream> burst = client.send(40, "/v1/chat/completions", body());
            assertThat(client.awaitAll(Duration.ofSeconds(60))).isTrue();
            long burstMs = (System.nanoTime() - start) / 1_000_000;
            long hungAttempts = SIMS.engine(2).stats().hung() - hungBefore;

            assertThat(burst).allSatisfy(s -> {
                assertThat(s.completed()).as(s.toString()).isTrue();
                assertThat(s.worker).isNotEqualTo(hung.url());
            });
            // round robin sends a quarter of the burst there; a loaded machine may add retries of slow attempts
            assertThat(hungAttempts).as("attempts that reached the hung engine").isGreaterThanOrEqualTo(10);
            assertThat(burst.stream().filter(s -> (s.headNanos - start) / 1_000_000 >= 2000).count())
                    .as("requests that waited for the idle limit before their retry").isGreaterThanOrEqualTo(10);
            BreakerState state = gw.gateway().beans().reliability().breakers().state(hung);
            assertThat(state).isEqualTo(BreakerState.OPEN);

            List<StreamRecorder.Stream> after = client.send(20, "/v1/chat/completions", body());
            assertThat(client.awaitAll(Duration.ofSeconds(30))).isTrue();
            assertThat(after).allSatisfy(s -> assertThat(s.completed()).isTrue());
            assertThat(SIMS.engine(2).stats().hung() - hungBefore).as("no request reached it once open")
                    .isEqualTo(hungAttempts);
            // the client can see a response end a moment before the gateway has released its lease
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                    assertThat(gw.workers().all()).allSatisfy(w -> assertThat(w.load()).isZero()));

            Map<String, Object> figures = new LinkedHashMap<>();
            figures.put("requests", 60);
            figures.put("failed", 0);
            figures.put("attempts_hung", hungAttempts);
            figures.put("retried", (long) gw.gateway().beans().meterRegistry().find("caravan.retries")
                    .tag("reason", "idle_timeout").counter().count());
            figures.put("idle_timeout_s", 2);
            figures.put("burst_ms", burstMs);
            figures.put("breaker", state.label());
            ChaosReport.record("hung-engine", figures);
        } finally {
            SIMS.resetFaults();
        }
    }

    @Test
    void nonStreamedRequestsToAHungEngineFailAtTheAttemptLimitRetryElsewhereAndItsBreakerOpens() throws Exception {
        try (GatewayHarness gw = GatewayHarness.start(GatewayHarness.config(SIMS.urls())
                .with(CoreFlags.DECISION_HEADERS, "true")
                .with(CoreFlags.POLICY_NAME, "round_robin")
                .with(ForwardFeature.NON_STREAM_ATTEMPT_TIMEOUT_SECS, "2")
                .with(CoreFlags.REQUEST_TIMEOUT_SECS, "30")
                .with(ReliabilityFeature.CB_FAILURE_THRESHOLD, "3"));
             StreamRecorder client = new StreamRecorder(gw.port())) {
            Worker hung = gw.workers().findByUrl(SIMS.engine(2).url()).orElseThrow();
            SIMS.engine(2).setFaults(Faults.NONE.merge(Map.of("hang", true)));
            MeterRegistry meters = gw.gateway().beans().meterRegistry();

            long hungBefore = SIMS.engine(2).stats().hung(); // the engine lives for the whole class
            long start = System.nanoTime();
            List<StreamRecorder.Stream> burst = client.send(40, "/v1/chat/completions", body(false));
            assertThat(client.awaitAll(Duration.ofSeconds(60))).isTrue();
            long burstMs = (System.nanoTime() - start) / 1_000_000;
            long hungAttempts = SIMS.engine(2).stats().hung() - hungBefore;

            assertThat(burst).allSatisfy(s -> {
                assertThat(s.answered()).as(s.toString()).isTrue();
                assertThat(s.worker).isNotEqualTo(hung.url());
            });
            // round robin sends a quarter of the burst there; a loaded machine may add retries of slow attempts
            assertThat(hungAttempts).as("attempts that reached the hung engine").isGreaterThanOrEqualTo(10);
            assertThat(retries(meters, "attempt_timeout")).as("every hung attempt was retried")
                    .isGreaterThanOrEqualTo(hungAttempts);
            assertThat(meters.find("caravan.forward.outcomes").tag("outcome", "idle_timeout").counter())
                    .as("the idle limit (300 s) played no part").isNull();
            assertThat(burst.stream().filter(s -> (s.headNanos - start) / 1_000_000 >= 2000).count())
                    .as("requests that waited for the attempt limit before their retry").isGreaterThanOrEqualTo(10);
            BreakerState state = gw.gateway().beans().reliability().breakers().state(hung);
            assertThat(state).isEqualTo(BreakerState.OPEN);

            List<StreamRecorder.Stream> after = client.send(20, "/v1/chat/completions", body(false));
            assertThat(client.awaitAll(Duration.ofSeconds(30))).isTrue();
            assertThat(after).allSatisfy(s -> assertThat(s.answered()).as(s.toString()).isTrue());
            assertThat(SIMS.engine(2).stats().hung() - hungBefore).as("no request reached it once open")
                    .isEqualTo(hungAttempts);
            // the client can see a response end a moment before the gateway has released its lease
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                    assertThat(gw.workers().all()).allSatisfy(w -> assertThat(w.load()).isZero()));

            Map<String, Object> figures = new LinkedHashMap<>();
            figures.put("requests", 60);
            figures.put("failed", 0);
            figures.put("attempts_hung", hungAttempts);
            figures.put("retried", retries(meters, "attempt_timeout"));
            figures.put("attempt_timeout_s", 2);
            figures.put("burst_ms", burstMs);
            figures.put("breaker", state.label());
            ChaosReport.record("hung-engine-non-streamed", figures);
        } finally {
            SIMS.resetFaults();
        }
    }

    private static long retries(MeterRegistry meters, String reason) {
        Counter c = meters.find("caravan.retries").tag("reason", reason).counter();
        return c == null ? 0 : (long) c.count();
    }

    private static String body() {
        return body(true);
    }

    private static String body(boolean stream) {
        return GatewayClient.json(Map.of("stream", stream, "messages",
                List.of(Map.of("role", "user", "content", "Are you there?"))));
    }
}
