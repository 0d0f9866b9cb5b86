package dev.caravan.it.pd;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.pd.PdFeature;
import dev.caravan.it.GatewayHarness;
import dev.caravan.it.RecordingEngine;
import dev.caravan.processors.pd.RelayDecodeProcessor;
import dev.caravan.processors.reliability.ReliabilityFeature;

/**
 * Retries in P/D (SGLang: each attempt re-selects a pair and mints a new room): a failing prefill engine is retried on
 * another pair, with fresh rooms, and the failed engine is left out of the next attempt.
 */
class PdRetryIT {

    private static RecordingEngine failingPrefill;
    private static RecordingEngine goodPrefill;
    private static RecordingEngine decode;
    private static GatewayHarness gateway;

    @BeforeAll
    static void start() {
        failingPrefill = RecordingEngine.start().respond(500, "{\"error\":{\"message\":\"prefill crashed\"}}");
        goodPrefill = RecordingEngine.start();
        decode = RecordingEngine.start().respond(200, "{\"text\":\"decoded\",\"meta_info\":{}}");
        gateway = GatewayHarness.start(GatewayHarness.config(List.of()).with(CoreFlags.DECISION_HEADERS, "true")
                .with(PdFeature.PD_DISAGGREGATION, "true")
                // round robin starts with the first prefill engine, the failing one
                .with(PdFeature.PREFILL_POLICY, "round_robin")
                .with(PdFeature.PREFILL, failingPrefill.url() + " 9001," + goodPrefill.url() + " 9002")
                .with(PdFeature.DECODE, decode.url())
                .with(ReliabilityFeature.RETRY_INITIAL_BACKOFF_MS, "1"));
    }

    @AfterAll
    static void stop() {
        gateway.close();
        failingPrefill.close();
        goodPrefill.close();
        decode.close();
    }

    @BeforeEach
    void clear() {
        failingPrefill.clear();
        goodPrefill.clear();
        decode.clear();
    }

    @Test
    void aFailedPrefillIsRetriedOnANewPairWithNewRooms() {
        HttpResponse<String> r = gateway.client().postJson("/generate", "{\"text\":\"hello\"}");

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains("decoded");
        assertThat(r.headers().firstValue(RelayDecodeProcessor.WORKER_HEADER)).hasValue(
                "prefill=" + goodPrefill.url() + "; decode=" + decode.url());
        assertThat(failingPrefill.received()).hasSize(1);
        assertThat(goodPrefill.received()).hasSize(1);
        // the retry's decode carries the good prefill's room; the first attempt's decode was cancelled when its prefill
        // failed, and may have been cut before its request reached the engine at all (then only the retry arrives)
        List<RecordingEngine.Received> decodes = decode.received();
        assertThat(decodes).hasSizeBetween(1, 2);
        JsonNode retried = decodes.get(decodes.size() - 1).body();
        long goodRoom = goodPrefill.received().get(0).body().path("bootstrap_room").asLong();
        long failedRoom = failingPrefill.received().get(0).body().path("bootstrap_room").asLong();
        assertThat(goodRoom).isNotEqualTo(failedRoom);
        assertThat(retried.path("bootstrap_room").asLong()).isEqualTo(goodRoom);
        assertThat(retried.path("bootstrap_port").asInt()).isEqualTo(9002);
        if (decodes.size() == 2) {
            assertThat(decodes.get(0).body().path("bootstrap_room").asLong()).isEqualTo(failedRoom);
            assertThat(decodes.get(0).body().path("bootstrap_port").asInt()).isEqualTo(9001);
        }
        assertThat(gateway.client().get("/metrics").body()).contains("caravan_retries_total{reason=\"500\"} 1.0");
    }

    @Test
    void aRetryableDecodeAnswerIsHeldBackAndRetried() {
        try (RecordingEngine fullDecode = RecordingEngine.start().respond(503, "{\"error\":{\"message\":\"decode full\"}}");
             GatewayHarness gw = GatewayHarness.start(GatewayHarness.config(List.of())
                     .with(CoreFlags.DECISION_HEADERS, "true")
                     .with(PdFeature.PD_DISAGGREGATION, "true")
                     .with(PdFeature.PREFILL, goodPrefill.url() + " 9002")
                     .with(PdFeature.DECODE, fullDecode.url())
                     .with(ReliabilityFeature.RETRY_INITIAL_BACKOFF_MS, "1"))) {
            HttpResponse<String> r = gw.client().postJson("/generate", "{\"text\":\"hello\"}");

            // one decode engine: every attempt gets 503; only the last one is answered, as the engine sent it
            assertThat(r.statusCode()).isEqualTo(503);
            assertThat(r.body()).contains("decode full");
            assertThat(fullDecode.received()).hasSize(5);
            // a new room on every attempt
            List<Long> rooms = fullDecode.received().stream().map(d -> d.body().path("bootstrap_room").asLong()).toList();
            assertThat(rooms).doesNotHaveDuplicates();
            // each early rejection aborts its prefill leg, which may be cut before its request reached the engine
            assertThat(goodPrefill.received()).hasSizeLessThanOrEqualTo(5);
            assertThat(goodPrefill.received()).allSatisfy(p ->
                    assertThat(rooms).contains(p.body().path("bootstrap_room").asLong()));
        }
    }
}
