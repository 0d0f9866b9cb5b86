package dev.caravan.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.caravan.processors.config.CaravanFlags;
import dev.caravan.processors.pd.RelayDecodeProcessor;

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
        gateway = GatewayHarness.start(GatewayHarness.config(List.of())
                .with(CaravanFlags.PD_DISAGGREGATION, "true")
                // round robin starts with the first prefill engine, the failing one
                .with(CaravanFlags.PREFILL_POLICY, "round_robin")
                .with(CaravanFlags.PREFILL, failingPrefill.url() + " 9001," + goodPrefill.url() + " 9002")
                .with(CaravanFlags.DECODE, decode.url())
                .with(CaravanFlags.RETRY_INITIAL_BACKOFF_MS, "1"));
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
        // decode got both attempts: the first (cancelled when prefill failed) and the retry, each with its own room
        List<RecordingEngine.Received> decodes = decode.received();
        assertThat(decodes).hasSize(2);
        JsonNode first = decodes.get(0).body();
        JsonNode second = decodes.get(1).body();
        assertThat(first.path("bootstrap_room").asLong()).isEqualTo(
                failingPrefill.received().get(0).body().path("bootstrap_room").asLong());
        assertThat(second.path("bootstrap_room").asLong()).isEqualTo(
                goodPrefill.received().get(0).body().path("bootstrap_room").asLong());
        assertThat(second.path("bootstrap_room").asLong()).isNotEqualTo(first.path("bootstrap_room").asLong());
        assertThat(first.path("bootstrap_port").asInt()).isEqualTo(9001);
        assertThat(second.path("bootstrap_port").asInt()).isEqualTo(9002);
        assertThat(gateway.client().get("/metrics").body()).contains("caravan_retries_total{reason=\"500\"} 1.0");
    }

    @Test
    void aRetryableDecodeAnswerIsHeldBackAndRetried() {
        try (RecordingEngine fullDecode = RecordingEngine.start().respond(503, "{\"error\":{\"message\":\"decode full\"}}");
             GatewayHarness gw = GatewayHarness.start(GatewayHarness.config(List.of())
                     .with(CaravanFlags.PD_DISAGGREGATION, "true")
                     .with(CaravanFlags.PREFILL, goodPrefill.url() + " 9002")
                     .with(CaravanFlags.DECODE, fullDecode.url())
                     .with(CaravanFlags.RETRY_INITIAL_BACKOFF_MS, "1"))) {
            HttpResponse<String> r = gw.client().postJson("/generate", "{\"text\":\"hello\"}");

            // one decode engine: every attempt gets 503; only the last one is answered, as the engine sent it
            assertThat(r.statusCode()).isEqualTo(503);
            assertThat(r.body()).contains("decode full");
            assertThat(fullDecode.received()).hasSize(5);
            assertThat(goodPrefill.received()).hasSize(5);
            // a new room on every attempt
            assertThat(fullDecode.received().stream().map(d -> d.body().path("bootstrap_room").asLong()).distinct())
                    .hasSize(5);
        }
    }
}
