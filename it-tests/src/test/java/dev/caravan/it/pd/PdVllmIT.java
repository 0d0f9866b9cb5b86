package dev.caravan.it.pd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.caravan.processors.pd.PdFeature;
import dev.caravan.it.GatewayClient;
import dev.caravan.it.GatewayHarness;
import dev.caravan.it.PdFleetExtension;
import dev.caravan.it.RawHttpStream;
import dev.caravan.sim.Faults;

/** vLLM's two-step P/D ({@code --pd-mode vllm}) end to end against simulated engines speaking kv_transfer_params. */
class PdVllmIT {

    @RegisterExtension
    static final PdFleetExtension PD = new PdFleetExtension(1, 1, b -> b.decodeMsPerToken(5));

    private static GatewayHarness gateway;

    @BeforeAll
    static void start() {
        gateway = GatewayHarness.start(PD.gatewayConfig().with(PdFeature.PD_MODE, "vllm"));
    }

    @AfterAll
    static void stop() {
        gateway.close();
    }

    @AfterEach
    void reset() {
        PD.reset();
    }

    private static String completion(String prompt, int maxTokens, boolean stream) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("model", PD.model());
        body.put("prompt", prompt);
        body.put("max_tokens", maxTokens);
        body.put("stream", stream);
        return GatewayClient.json(body);
    }

    @Test
    void prefillsOneTokenThenDecodesWarmWithTheReturnedKvTransferParams() {
        HttpResponse<String> r = gateway.client().postJson("/v1/completions",
                completion("The two-step protocol moves the prompt's KV from one engine to another", 7, false));

        assertThat(r.statusCode()).isEqualTo(200);
        JsonNode usage = GatewayClient.parse(r.body()).path("usage");
        assertThat(usage.path("completion_tokens").asInt()).isEqualTo(7);
        // the decode engine received the KV: every prompt token was cached there
        assertThat(usage.path("prompt_tokens_details").path("cached_tokens").asInt())
                .isEqualTo(usage.path("prompt_tokens").asInt());
        assertThat(PD.prefill(0).stats().completionTokens()).isEqualTo(1);
        assertThat(PD.decode(0).stats().completionTokens()).isEqualTo(7);
        gateway.awaitNoLoad(Duration.ofSeconds(10));
    }

    @Test
    void streamsTheDecodeStepsAnswer() {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("model", PD.model());
        body.put("messages", List.of(Map.of("role", "user", "content", "Stream me a reply")));
        body.put("max_tokens", 5);
        body.put("stream", true);
        body.put("stream_options", Map.of("include_usage", true));
        GatewayClient.Streamed s = gateway.client().stream("/v1/chat/completions", GatewayClient.json(body));

        assertThat(s.status()).isEqualTo(200);
        assertThat(s.header("content-type")).startsWith("text/event-stream");
        assertThat(s.data()).last().isEqualTo("[DONE]");
        JsonNode usage = GatewayClient.parse(s.data().get(s.data().size() - 2)).path("usage");
        assertThat(usage.path("completion_tokens").asInt()).isEqualTo(5);
        assertThat(usage.path("prompt_tokens_details").path("cached_tokens").asInt())
                .isEqualTo(usage.path("prompt_tokens").asInt());
        // the prefill step was not streamed and generated one token
        assertThat(PD.prefill(0).stats().completionTokens()).isEqualTo(1);
        gateway.awaitNoLoad(Duration.ofSeconds(10));
    }

    @Test
    void aFailedPrefillNeverReachesDecode() {
        PD.prefill(0).setFaults(Faults.NONE.merge(Map.of("error_rate", 1.0, "error_status", 500)));
        HttpResponse<String> r = gateway.client().postJson("/v1/completions", completion("hi", 3, false));

        assertThat(r.statusCode()).isEqualTo(502);
        assertThat(r.headers().firstValue("X-Caravan-Error-Code")).hasValue("prefill_server_error");
        assertThat(PD.decode(0).stats().requests()).isZero();
        gateway.awaitNoLoad(Duration.ofSeconds(10));
    }

    @Test
    void aClientThatHangsUpDuringDecodeCancelsIt() {
        try (RawHttpStream stream = RawHttpStream.post(gateway.port(), "/v1/completions",
                completion("a long one", 3000, true))) {
            stream.readLineStartingWith("data:");
        }
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(PD.decode(0).stats().cancelled()).isEqualTo(1));
        gateway.awaitNoLoad(Duration.ofSeconds(10));
    }

    @Test
    void generateIsNotPartOfTheVllmProtocol() {
        HttpResponse<String> r = gateway.client().postJson("/generate", "{\"text\":\"hi\"}");
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.body()).contains("--pd-mode sglang");
    }
}
