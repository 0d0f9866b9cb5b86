package dev.caravan.it.pd;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.caravan.processors.pd.PdFeature;
import dev.caravan.it.GatewayClient;
import dev.caravan.it.GatewayHarness;
import dev.caravan.it.RecordingEngine;

/**
 * What exactly each leg receives (SGLang cases 25 and 32): recording engines stand in for prefill and decode, so the
 * test sees the bodies the gateway sent.
 */
class PdBootstrapIT {

    private static RecordingEngine prefill;
    private static RecordingEngine prefillNoPort;
    private static RecordingEngine decode;
    private static GatewayHarness gateway;

    @BeforeAll
    static void start() {
        prefill = RecordingEngine.start();
        prefillNoPort = RecordingEngine.start();
        decode = RecordingEngine.start().respond(200, "{\"text\":\"from decode\",\"meta_info\":{}}");
        gateway = GatewayHarness.start(GatewayHarness.config(List.of())
                .with(PdFeature.PD_DISAGGREGATION, "true")
                .with(PdFeature.PREFILL_POLICY, "round_robin")
                .with(PdFeature.PREFILL, prefill.url() + " 9000," + prefillNoPort.url() + " none")
                .with(PdFeature.DECODE, decode.url()));
    }

    @AfterAll
    static void stop() {
        gateway.close();
        prefill.close();
        prefillNoPort.close();
        decode.close();
    }

    @BeforeEach
    void clear() {
        prefill.clear();
        prefillNoPort.clear();
        decode.clear();
    }

    /** The one body the prefill leg received, whichever prefill engine the round robin picked. */
    private static RecordingEngine.Received prefillReceived() {
        List<RecordingEngine.Received> all = new java.util.ArrayList<>(prefill.received());
        all.addAll(prefillNoPort.received());
        assertThat(all).hasSize(1);
        return all.get(0);
    }

    private static RecordingEngine.Received decodeReceived() {
        assertThat(decode.received()).hasSize(1);
        return decode.received().get(0);
    }

    @Test
    void bothLegsGetTheSameBodyWithTheRendezvousFields() {
        HttpResponse<String> r = gateway.client().postJson("/generate", "{\"text\":\"hello\",\"rid\":\"r1\"}");

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains("from decode");
        JsonNode p = prefillReceived().body();
        JsonNode d = decodeReceived().body();
        assertThat(p).isEqualTo(d);
        assertThat(p.path("text").asText()).isEqualTo("hello");
        assertThat(p.path("rid").asText()).isEqualTo("r1");
        assertThat(p.path("bootstrap_host").asText()).isEqualTo("127.0.0.1");
        assertThat(p.path("bootstrap_room").isIntegralNumber()).isTrue();
        assertThat(p.path("bootstrap_room").asLong()).isNotNegative();
        assertThat(prefillReceived().path()).isEqualTo("/generate");
        assertThat(decodeReceived().path()).isEqualTo("/generate");
    }

    @Test
    void theBootstrapPortIsThePrefillWorkersOrJsonNull() {
        // round robin over the two prefill engines: one has port 9000, the other none
        Map<String, JsonNode> portByEngine = new java.util.HashMap<>();
        for (int i = 0; i < 2; i++) {
            clear();
            gateway.client().postJson("/generate", "{\"text\":\"hello\"}");
            String engine = prefill.received().isEmpty() ? "none" : "9000";
            portByEngine.put(engine, decodeReceived().body().get("bootstrap_port"));
        }
        assertThat(portByEngine.get("9000").asInt()).isEqualTo(9000);
        assertThat(portByEngine.get("none").isNull()).isTrue();
    }

    @Test
    void aGenerateBatchGetsArraysWithADistinctRoomPerItem() {
        gateway.client().postJson("/generate", "{\"input_ids\":[[1,2,3],[4,5],[6],[7,8]]}");

        JsonNode p = prefillReceived().body();
        JsonNode d = decodeReceived().body();
        assertThat(p).isEqualTo(d);
        assertThat(p.path("bootstrap_host").size()).isEqualTo(4);
        assertThat(p.path("bootstrap_port").size()).isEqualTo(4);
        Set<Long> rooms = new HashSet<>();
        p.path("bootstrap_room").forEach(n -> rooms.add(n.asLong()));
        assertThat(rooms).hasSize(4);
    }

    @Test
    void chatWithSeveralChoicesAndCompletionsWithArrayPromptsAreBatches() {
        gateway.client().postJson("/v1/chat/completions",
                "{\"n\":3,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
        assertThat(decodeReceived().body().path("bootstrap_room").size()).isEqualTo(3);
        assertThat(decodeReceived().path()).isEqualTo("/v1/chat/completions");

        clear();
        gateway.client().postJson("/v1/completions", "{\"prompt\":[\"a\",\"b\"]}");
        assertThat(decodeReceived().body().path("bootstrap_room").size()).isEqualTo(2);
    }

    @Test
    void everyRequestGetsAFreshRoom() {
        Set<Long> rooms = new HashSet<>();
        for (int i = 0; i < 10; i++) {
            clear();
            gateway.client().postJson("/generate", "{\"text\":\"same text\"}");
            rooms.add(decodeReceived().body().path("bootstrap_room").asLong());
        }
        assertThat(rooms).hasSize(10);
    }

    @Test
    void embeddingsAndTheResponsesApiStayOnRegularWorkers() {
        for (String[] call : new String[][] {{"/v1/embeddings", "{\"input\":\"hi\"}"},
                {"/v1/responses", "{\"input\":\"hi\"}"}}) {
            HttpResponse<String> r = gateway.client().postJson(call[0], call[1]);
            assertThat(r.statusCode()).as(call[0]).isEqualTo(503);
            assertThat(r.headers().firstValue("X-Caravan-Error-Code")).hasValue("no_available_workers");
            assertThat(GatewayClient.parse(r.body()).path("error").path("message").asText()).isEqualTo(
                    "No regular workers are registered (the registered ones are decode and prefill workers; "
                    + "embeddings and the Responses API need a regular worker)");
        }
        assertThat(prefill.received()).isEmpty();
        assertThat(prefillNoPort.received()).isEmpty();
        assertThat(decode.received()).isEmpty();
    }

    @Test
    void prefillAndDecodeWorkersCanBeRegisteredThroughTheAdminApi() {
        try (RecordingEngine extra = RecordingEngine.start()) {
            HttpResponse<String> added = gateway.client().postJson("/workers", "{\"url\":\"" + extra.url()
                    + "\",\"worker_type\":\"prefill\",\"bootstrap_port\":8998}");
            assertThat(added.statusCode()).isEqualTo(202);
            // round robin over three prefill engines now: within three requests the new one gets one
            for (int i = 0; i < 3; i++) {
                gateway.client().postJson("/generate", "{\"text\":\"x\"}");
            }
            assertThat(extra.received()).hasSize(1);
            assertThat(extra.received().get(0).body().path("bootstrap_port").asInt()).isEqualTo(8998);
            String id = GatewayClient.parse(added.body()).path("worker_id").asText();
            assertThat(gateway.client().delete("/workers/" + id).statusCode()).isLessThan(300);
        }
    }
}
