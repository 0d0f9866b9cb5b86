package dev.caravan.it.observability;

import static dev.caravan.it.MetricsText.sample;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.caravan.it.GatewayClient;
import dev.caravan.it.GatewayHarness;
import dev.caravan.it.SimFleetExtension;

/**
 * GET /metrics on the gateway port moves with the traffic, including the engines' real prefix-cache hits; the metrics
 * listener ({@code --prometheus-port}) serves the same registry, with SGLang's {@code smg_*} names beside Caravan's, and
 * is the only one with the per-tenant metrics. With the default configuration, answers carry no decision headers.
 */
class MetricsIT {

    @RegisterExtension
    static final SimFleetExtension SIMS = new SimFleetExtension(2, b -> b.defaultMaxTokens(2));

    private static GatewayHarness gateway;

    /** Meters the registry refused (Prometheus takes one set of labels per name), recorded from before the start. */
    private static final List<String> REFUSED = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void start() {
        PrometheusMeterRegistry meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        meters.config().onMeterRegistrationFailed((id, reason) -> REFUSED.add(id.getName() + ": " + reason));
        gateway = GatewayHarness.start(GatewayHarness.config(SIMS.urls())
                // SGLang's rule: the shared system prompt makes the later chats hits on one engine
                .with(dev.caravan.processors.config.CoreFlags.SGLANG_DEFAULTS, "true"), meters);
    }

    @AfterAll
    static void stop() {
        gateway.close();
    }

    private static void chat(String userText, boolean stream) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("model", SIMS.model());
        body.put("stream", stream);
        body.put("messages", List.of(Map.of("role", "system", "content", "You answer questions about the atlas. "
                .repeat(12)), Map.of("role", "user", "content", userText)));
        if (stream) {
            assertThat(gateway.client().stream("/v1/chat/completions", GatewayClient.json(body)).status()).isEqualTo(200);
        } else {
            var r = gateway.client().postJson("/v1/chat/completions", GatewayClient.json(body));
            assertThat(r.statusCode()).isEqualTo(200);
            // decision headers are off by default: the decision is in the metrics, not in the response
            assertThat(r.headers().firstValue("X-Caravan-Worker")).isEmpty();
            assertThat(r.headers().firstValue("X-Caravan-Decision")).isEmpty();
            assertThat(r.headers().firstValue("X-Request-Id")).isPresent();
        }
    }

    @Test
    void countersMoveWithTrafficAndShowTheFleetsCacheHits() {
        String before = gateway.client().get("/metrics").body();
        double requestsBefore = sample(before, "caravan_requests_total", "endpoint=\"/v1/chat/completions\"",
                "status=\"200\"");

        chat("Where is Samarkand?", false);
        chat("Where is Bukhara?", false);
        chat("Where is Merv?", true);
        gateway.client().get("/no/such/path");

        String after = gateway.client().get("/metrics").body();
        // --decision-quality and --shadow-policies are off by default: nothing of theirs is measured
        assertThat(after).doesNotContain("caravan_decision_").doesNotContain("caravan_shadow_");
        assertThat(sample(after, "caravan_requests_total", "endpoint=\"/v1/chat/completions\"", "status=\"200\""))
                .isEqualTo((Double.isNaN(requestsBefore) ? 0 : requestsBefore) + 3);
        assertThat(sample(after, "caravan_requests_total", "endpoint=\"unmatched\"", "status=\"404\""))
                .isNotNaN().isGreaterThanOrEqualTo(1);
        assertThat(sample(after, "caravan_policy_decisions_total", "policy=\"cache_aware\"", "branch=\"cache_hit\""))
                .isNotNaN().isGreaterThanOrEqualTo(2);
        // the shared system prompt is served from the engine's prefix cache on the second and third request
        assertThat(sample(after, "caravan_prompt_tokens_total", "worker=\"")).isNotNaN().isGreaterThan(0);
        assertThat(sample(after, "caravan_cached_tokens_total", "worker=\"")).isNotNaN().isGreaterThan(0);
        assertThat(sample(after, "caravan_tree_chars")).isNotNaN().isGreaterThan(0);
        assertThat(sample(after, "caravan_time_to_first_byte_seconds_count", "endpoint=\"/v1/chat/completions\""))
                .isNotNaN().isGreaterThanOrEqualTo(3);
        assertThat(sample(after, "caravan_request_duration_seconds_count", "endpoint=\"/v1/chat/completions\""))
                .isNotNaN().isGreaterThanOrEqualTo(3);
        assertThat(sample(after, "caravan_forward_outcomes_total", "outcome=\"completed\""))
                .isNotNaN().isGreaterThanOrEqualTo(3);
        assertThat(sample(after, "caravan_worker_requests_active")).isZero();
        assertThat(sample(after, "caravan_worker_healthy")).isEqualTo(2);
        assertThat(sample(after, "jvm_threads_live_threads")).isNotNaN().isGreaterThan(0);
    }

    @Test
    void everyMetricSourceRegistersWithoutANameClash() {
        chat("Where is Urgench?", false);
        String text = gateway.client().get("/metrics").body();
        assertThat(REFUSED).isEmpty();
        // the engines' counts per worker, and the gateway's own prompt tokens by source, under two names
        assertThat(sample(text, "caravan_prompt_tokens_total", "worker=\"")).isNotNaN().isGreaterThan(0);
        assertThat(sample(text, "caravan_prompt_tokens_requests_total", "source=\"none\""))
                .isNotNaN().isGreaterThan(0);
    }

    @Test
    void perTenantMetricsAppearOnlyOnTheMetricsListener() {
        chat("Where is Termez?", false);
        String port = gateway.client().get("/metrics").body();
        String listener = new GatewayClient("http://127.0.0.1:" + gateway.gateway().metricsPort()).get("/metrics")
                .body();
        // every caller the (absent) tenants file does not name is tenant "other"
        assertThat(sample(listener, "caravan_tenant_admitted_total", "tenant=\"other\"")).isGreaterThanOrEqualTo(1);
        assertThat(port).doesNotContain("tenant=\"").doesNotContain("caravan_tenant_");
        assertThat(sample(port, "caravan_tenants_configured")).isZero();
        assertThat(sample(port, "caravan_requests_total", "endpoint=\"/v1/chat/completions\"", "status=\"200\""))
                .isGreaterThanOrEqualTo(1);
    }

    @Test
    void theMetricsListenerServesTheRegistryWithSglangsNamesBesideCaravans() {
        chat("Where is Khiva?", false);
        int port = gateway.gateway().metricsPort();
        assertThat(port).isPositive().isNotEqualTo(gateway.port());
        GatewayClient metrics = new GatewayClient("http://127.0.0.1:" + port);
        var scraped = metrics.get("/metrics");
        assertThat(scraped.statusCode()).isEqualTo(200);
        assertThat(scraped.headers().firstValue("content-type")).hasValueSatisfying(ct -> assertThat(ct)
                .startsWith("text/plain"));
        String text = scraped.body();
        assertThat(sample(text, "smg_http_requests_total", "method=\"POST\"", "path=\"/v1/chat/completions\""))
                .isEqualTo(sample(text, "caravan_requests_total", "endpoint=\"/v1/chat/completions\"",
                        "status=\"200\""));
        assertThat(sample(text, "smg_http_responses_total", "status_code=\"200\""))
                .isNotNaN().isGreaterThanOrEqualTo(1);
        assertThat(sample(text, "smg_http_request_duration_seconds_count", "path=\"/v1/chat/completions\""))
                .isNotNaN().isGreaterThanOrEqualTo(1);
        assertThat(sample(text, "smg_worker_selection_total", "policy=\"cache_aware\"",
                "connection_mode=\"http\"")).isNotNaN().isGreaterThanOrEqualTo(1);
        assertThat(sample(text, "smg_worker_health")).isEqualTo(2);
        assertThat(sample(text, "smg_worker_requests_active")).isZero();
        assertThat(sample(text, "smg_worker_cb_state")).isZero();
        assertThat(metrics.get("/").statusCode()).isEqualTo(404);
    }
}
