package dev.caravan.it.flow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import dev.caravan.processors.flow.FlowFeature;
import dev.caravan.processors.pd.PdFeature;
import dev.caravan.processors.reliability.ReliabilityFeature;
import dev.caravan.it.GatewayClient;
import dev.caravan.it.GatewayHarness;
import dev.caravan.it.PdFleetExtension;
import dev.caravan.sim.Faults;

/**
 * A tenant's charge under prefill/decode disaggregation, on the P/D ITs' simulated fleet: one request is charged once,
 * its prompt from the prefill leg's usage and its output from the decode leg's (not prefill's one token on top, nor
 * prefill's count instead of decode's), in both protocols and across a retried decode; and its response carries the
 * tenant's {@code x-ratelimit-*} headers.
 */
class FlowControlPdIT {

    @RegisterExtension
    static final PdFleetExtension PD = new PdFleetExtension(1, 2, b -> b.decodeMsPerToken(1));

    @TempDir
    Path dir;

    @AfterEach
    void reset() {
        PD.reset();
    }

    private GatewayHarness gateway(String mode) throws Exception {
        Path file = dir.resolve("tenants.yaml");
        Files.writeString(file, "tenants: { acme: { apiKeys: [ \"sk-acme\" ], requestsPerMinute: 100, "
                + "inputTokensPerMinute: 100000, outputTokensPerMinute: 1000 } }");
        return GatewayHarness.start(PD.gatewayConfig().with(PdFeature.PD_MODE, mode)
                .with(PdFeature.DECODE_POLICY, "round_robin").with(ReliabilityFeature.CB_FAILURE_THRESHOLD, "100")
                .with(ReliabilityFeature.RETRY_INITIAL_BACKOFF_MS, "1")
                .with(FlowFeature.TENANTS_FILE, file.toString()));
    }

    private static String chat(String text, int maxTokens, boolean stream) {
        return GatewayClient.json(Map.of("model", PD.model(), "max_tokens", maxTokens, "stream", stream,
                "stream_options", Map.of("include_usage", true),
                "messages", java.util.List.of(Map.of("role", "user", "content", text))));
    }

    private static long[] charged(GatewayHarness gw) {
        return gw.gateway().beans().flow().limiter().localUsage().get("acme");
    }

    /** The prompt tokens the answer's usage reports (the last usage object of a stream). */
    private static long promptTokens(String body) {
        int at = body.lastIndexOf("\"prompt_tokens\":");
        return Long.parseLong(body.substring(at + 16).split("[,}]")[0].trim());
    }

    @Test
    void vllmsTwoStepPdChargesThePromptFromPrefillAndTheOutputFromDecodeOnce() throws Exception {
        try (GatewayHarness gw = gateway("vllm")) {
            HttpResponse<String> r = gw.client().postJson("/v1/chat/completions",
                    chat("charge me once for both legs", 7, false), "Authorization", "Bearer sk-acme");

            assertThat(r.statusCode()).isEqualTo(200);
            JsonNode usage = GatewayClient.parse(r.body()).path("usage");
            assertThat(usage.path("completion_tokens").asLong()).isEqualTo(7);
            assertThat(PD.prefill(0).stats().completionTokens()).as("prefill's own token").isEqualTo(1);
            long prompt = usage.path("prompt_tokens").asLong();
            // settled when the exchange completes, which may be just after the client has the last byte
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                    assertThat(charged(gw)).containsExactly(1, prompt, 7));
            assertThat(r.headers().firstValue("x-ratelimit-limit-output-tokens")).hasValue("1000");
            assertThat(r.headers().firstValue("x-ratelimit-limit-requests")).hasValue("100");
            assertThat(r.headers().firstValue("x-ratelimit-remaining-requests")).hasValue("99");
        }
    }

    @Test
    void sglangsStreamedPdIsChargedItsDecodeOutputAndCarriesTheHeadersBeforeTheFirstByte() throws Exception {
        try (GatewayHarness gw = gateway("sglang")) {
            HttpResponse<String> r = gw.client().postJson("/v1/chat/completions",
                    chat("stream me and charge me once", 9, true), "Authorization", "Bearer sk-acme");

            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).contains("\"completion_tokens\":9");
            assertThat(r.headers().firstValue("x-ratelimit-remaining-requests")).hasValue("99");
            assertThat(r.headers().firstValue("x-ratelimit-limit-tokens")).hasValue("100000");
            long prompt = promptTokens(r.body());
            // the stream was charged per event as it flowed; settled to usage when the exchange completes, which may
            // be just after the client has the last byte
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                    assertThat(charged(gw)).containsExactly(1, prompt, 9));
        }
    }

    @Test
    void aRetriedDecodeIsChargedOnce() throws Exception {
        PD.decode(0).setFaults(Faults.NONE.merge(Map.of("error_rate", 1.0, "error_status", 503)));
        try (GatewayHarness gw = gateway("sglang")) {
            long prompts = 0;
            for (int i = 0; i < 2; i++) {
                HttpResponse<String> r = gw.client().postJson("/v1/chat/completions",
                        chat("retry me, request " + i, 5, false), "Authorization", "Bearer sk-acme");
                assertThat(r.statusCode()).as("request %d", i).isEqualTo(200);
                prompts += GatewayClient.parse(r.body()).path("usage").path("prompt_tokens").asLong();
            }
            double retries = gw.gateway().beans().meterRegistry().find("caravan.retries").tag("reason", "503")
                    .counter().count();
            // round robin's counter moves on the retry too, so every first attempt lands on the failing decode
            assertThat(retries).as("each request was retried once").isEqualTo(2);

            long allPrompts = prompts;
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(charged(gw))
                    .as("two requests, their prompts and 5 + 5 output tokens, each once")
                    .containsExactly(2, allPrompts, 10));
        }
    }
}
