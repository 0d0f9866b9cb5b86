package dev.caravan.it.observability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.caravan.it.GatewayClient;
import dev.caravan.it.GatewayHarness;
import dev.caravan.it.OtlpReceiver.ReceivedSpan;
import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.health.HealthFeature;
import dev.caravan.processors.reliability.ReliabilityFeature;
import dev.caravan.processors.trace.TracingFeature;
import dev.caravan.it.OtlpReceiver;
import dev.caravan.it.PdFleetExtension;
import dev.caravan.it.RecordingEngine;

/**
 * {@code --enable-trace} against OTLP receivers started in the test: one span per request continuing the client's
 * trace, a child span for worker selection with the decision in its attributes, one per attempt (a retry is a second
 * attempt span) whose {@code traceparent} the engine receives, and the P/D legs — over gRPC (SGLang's
 * {@code host:port} form) and over HTTP ({@code .../v1/traces}).
 */
class TracingIT {

    private static final String CLIENT_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final String CLIENT_SPAN = "00f067aa0ba902b7";

    @RegisterExtension
    static final PdFleetExtension PD = new PdFleetExtension(1, 1, b -> b.timeScale(50).defaultMaxTokens(2));

    private static Optional<ReceivedSpan> named(List<ReceivedSpan> spans, String name, Object attemptNumber) {
        return spans.stream().filter(s -> s.name().equals(name)
                && (attemptNumber == null || attemptNumber.equals(s.attributes().get("caravan.attempt")))).findFirst();
    }

    @Test
    void aRetriedRequestIsOneTraceWithSelectionAndAttemptSpansAndTheEngineJoinsIt() {
        try (OtlpReceiver otlp = OtlpReceiver.grpc();
             RecordingEngine failing = RecordingEngine.start().respond(503, "{\"error\":\"overloaded\"}");
             RecordingEngine serving = RecordingEngine.start()) {
            try (GatewayHarness gw = GatewayHarness.start(GatewayHarness.config(List.of(failing.url(), serving.url()))
                    .with(CoreFlags.POLICY_NAME, "round_robin").with(HealthFeature.DISABLE_HEALTH_CHECK, "true")
                    .with(ReliabilityFeature.RETRY_INITIAL_BACKOFF_MS, "1")
                    .with(TracingFeature.ENABLE_TRACE, "true").with(TracingFeature.OTLP_TRACES_ENDPOINT, otlp.endpoint()))) {
                HttpResponse<String> r = gw.client().postJson("/v1/completions",
                        GatewayClient.json(Map.of("prompt", "trace me")),
                        "traceparent", "00-" + CLIENT_TRACE + "-" + CLIENT_SPAN + "-01");
                assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
                await().atMost(Duration.ofSeconds(20)).until(() -> otlp.trace(CLIENT_TRACE).size() >= 5);
            }
            List<ReceivedSpan> spans = otlp.trace(CLIENT_TRACE);
            ReceivedSpan request = named(spans, "POST /v1/completions", null).orElseThrow();
            assertThat(request.kind()).isEqualTo(ReceivedSpan.KIND_SERVER);
            assertThat(request.parentSpanId()).as("continues the client's trace").isEqualTo(CLIENT_SPAN);
            assertThat(request.attributes()).containsEntry("http.response.status_code", 200L)
                    .containsEntry("caravan.policy", "round_robin").containsEntry("caravan.worker", serving.url());
            List<ReceivedSpan> selections = spans.stream().filter(s -> s.name().equals("select_worker")).toList();
            assertThat(selections).hasSize(2).allSatisfy(s -> {
                assertThat(s.parentSpanId()).isEqualTo(request.spanId());
                assertThat(s.attributes()).containsEntry("caravan.policy", "round_robin")
                        .containsEntry("caravan.branch", "next_in_cycle");
            });
            ReceivedSpan first = named(spans, "attempt", 1L).orElseThrow();
            ReceivedSpan second = named(spans, "attempt", 2L).orElseThrow();
            assertThat(first.kind()).isEqualTo(ReceivedSpan.KIND_CLIENT);
            assertThat(first.parentSpanId()).isEqualTo(request.spanId());
            assertThat(first.attributes()).containsEntry("caravan.worker", failing.url())
                    .containsEntry("http.response.status_code", 503L).containsEntry("caravan.outcome", "retryable_status");
            assertThat(second.attributes()).containsEntry("caravan.worker", serving.url())
                    .containsEntry("http.response.status_code", 200L).containsEntry("caravan.outcome", "completed");
            String sent = serving.received().get(0).headers().get("traceparent");
            assertThat(sent).as("the engine joins the trace under the attempt span")
                    .isEqualTo("00-" + CLIENT_TRACE + "-" + second.spanId() + "-01");
        }
    }

    @Test
    void aPrefillDecodeRequestHasItsPairSelectionAndBothLegs() {
        try (OtlpReceiver otlp = OtlpReceiver.http();
             GatewayHarness gw = GatewayHarness.start(PD.gatewayConfig().with(TracingFeature.ENABLE_TRACE, "true")
                     .with(TracingFeature.OTLP_TRACES_ENDPOINT, otlp.endpoint()))) {
            HttpResponse<String> r = gw.client().postJson("/generate", GatewayClient.json(Map.of("text", "split me",
                    "sampling_params", Map.of("max_new_tokens", 2))));
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            await().atMost(Duration.ofSeconds(20)).until(() -> otlp.spans().stream()
                    .map(ReceivedSpan::name).toList().containsAll(List.of("POST /generate", "select_pd_pair",
                            "prefill_leg", "decode_leg")));
            List<ReceivedSpan> spans = otlp.spans();
            ReceivedSpan request = named(spans, "POST /generate", null).orElseThrow();
            assertThat(spans.stream().filter(s -> s.traceId().equals(request.traceId())).map(ReceivedSpan::name))
                    .contains("select_pd_pair", "prefill_leg", "decode_leg");
            assertThat(named(spans, "select_pd_pair", null).orElseThrow().attributes())
                    .containsKeys("caravan.prefill.worker", "caravan.decode.worker", "caravan.prefill.decision");
            assertThat(named(spans, "prefill_leg", null).orElseThrow().kind()).isEqualTo(ReceivedSpan.KIND_CLIENT);
        }
    }
}
