package dev.caravan.it.pd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.caravan.processors.pd.PdFeature;
import dev.caravan.processors.reliability.ReliabilityFeature;
import dev.caravan.it.GatewayHarness;
import dev.caravan.it.RecordingEngine;
import dev.caravan.sim.EngineRole;
import dev.caravan.sim.SimConfig;
import dev.caravan.sim.SimEngine;

/**
 * A prefill failure must not strand its decode partner for the engine's 300 s waiting timeout (docs/design/upstream.md,
 * "SGLang: P/D dispatch"). The prefill is a stand-in that fails only once the real (simulated) decode engine is waiting
 * for the KV, so the test knows the decode request was in the engine's bootstrap wait when the gateway cancelled it.
 */
class PdCancellationIT {

    private static RecordingEngine prefill;
    private static SimEngine decode;
    private static GatewayHarness gateway;

    @BeforeAll
    static void start() {
        prefill = RecordingEngine.start();
        decode = SimEngine.start(SimConfig.builder().role(EngineRole.DECODE).build());
        gateway = GatewayHarness.start(GatewayHarness.config(List.of())
                .with(PdFeature.PD_DISAGGREGATION, "true")
                .with(PdFeature.PREFILL, prefill.url() + " " + prefill.port())
                .with(PdFeature.DECODE, decode.url())
                .with(ReliabilityFeature.DISABLE_RETRIES, "true")); // one attempt, so each cancellation is the one asked
    }

    @AfterAll
    static void stop() {
        gateway.close();
        decode.close();
        prefill.close();
    }

    @AfterEach
    void reset() {
        prefill.clear();
        decode.stats().reset();
    }

    @Test
    void aPrefill5xxCancelsTheWaitingDecodeInSecondsNot300() {
        prefill.answerAfterRoomPoll(500, "{\"error\":{\"message\":\"prefill crashed\"}}");
        long start = System.nanoTime();
        HttpResponse<String> r = gateway.client().postJson("/generate", "{\"text\":\"hello there\"}");

        assertThat(r.statusCode()).isEqualTo(502);
        assertThat(r.headers().firstValue("X-Caravan-Error-Code")).hasValue("prefill_server_error");
        assertThat(prefill.roomPolls()).isPositive(); // decode was waiting for the KV when prefill failed
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(decode.stats().cancelledWaiting()).isEqualTo(1));
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(15));
        assertThat(decode.stats().bootstrapTimeouts()).isZero();
        String metrics = gateway.client().get("/metrics").body();
        assertThat(metrics).contains("caravan_pd_cancellations_total{leg=\"decode\",reason=\"prefill_failed\"} 1.0");
        // the prefill engine's breaker counts the failure; the decode engine, which never had a chance, is not judged
        assertThat(metrics).contains("caravan_worker_cb_outcomes_total{outcome=\"failure\",worker=\"" + prefill.url()
                + "\"} 1.0");
        assertThat(metrics.lines().filter(l -> l.startsWith("caravan_worker_cb_outcomes_total")
                && l.contains(decode.url()))).isEmpty();
        gateway.awaitNoLoad(Duration.ofSeconds(10));
    }

    @Test
    void aPrefill4xxIsForwardedAsIsAndStillCancelsDecode() {
        prefill.answerAfterRoomPoll(400, "{\"error\":{\"message\":\"prompt too long\"}}");
        HttpResponse<String> r = gateway.client().postJson("/generate", "{\"text\":\"hello there\"}");

        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.body()).isEqualTo("{\"error\":{\"message\":\"prompt too long\"}}");
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(decode.stats().cancelledWaiting()).isEqualTo(1));
        gateway.awaitNoLoad(Duration.ofSeconds(10));
    }
}
