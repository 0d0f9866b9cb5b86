package dev.caravan.processors.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.apache.camel.Exchange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.caravan.policies.Decision;
import dev.caravan.policies.Worker;
import dev.caravan.processors.CaravanExchangeProperties;
import dev.caravan.processors.StartedCamel;

/**
 * The per-request meters, looked up per endpoint once: each request lands on the series of its own endpoint, status,
 * method, error code and outcome, however the requests before it were labelled.
 */
class GatewayMetricsTest {

    @RegisterExtension
    static final StartedCamel CAMEL = new StartedCamel();

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final GatewayMetrics metrics = new GatewayMetrics(registry);

    private void complete(String endpoint, String method, int status, String errorCode, String outcome, Long ttfb) {
        Exchange exchange = CAMEL.exchange();
        exchange.getIn().setHeader(Exchange.HTTP_METHOD, method);
        CaravanExchangeProperties.ERROR_CODE.set(exchange, errorCode);
        CaravanExchangeProperties.OUTCOME.set(exchange, outcome);
        CaravanExchangeProperties.TTFB_NANOS.set(exchange, ttfb);
        metrics.onRequestComplete(exchange, endpoint, status, 2_000_000);
    }

    @Test
    void eachRequestCountsUnderItsOwnEndpointStatusMethodAndErrorCode() {
        complete("/v1/completions", "POST", 200, null, "completed", 1_000_000L);
        complete("/v1/completions", "POST", 200, null, "completed", 1_000_000L);
        complete("/v1/completions", "GET", 404, "not_found", null, null);
        complete("/v1/chat/completions", "POST", 503, "no_available_workers", null, null);
        complete("/v1/chat/completions", "POST", 200, "", "completed", null);
        complete("/v1/completions", "POST", 799, null, "timeout", null);

        String scrape = registry.scrape();
        assertThat(scrape).contains(
                "caravan_requests_total{endpoint=\"/v1/completions\",status=\"200\"} 2.0",
                "caravan_requests_total{endpoint=\"/v1/completions\",status=\"404\"} 1.0",
                "caravan_requests_total{endpoint=\"/v1/completions\",status=\"799\"} 1.0",
                "caravan_requests_total{endpoint=\"/v1/chat/completions\",status=\"503\"} 1.0",
                "caravan_requests_total{endpoint=\"/v1/chat/completions\",status=\"200\"} 1.0",
                "caravan_request_duration_seconds_count{endpoint=\"/v1/completions\"} 4",
                "caravan_request_duration_seconds_count{endpoint=\"/v1/chat/completions\"} 2",
                "caravan_time_to_first_byte_seconds_count{endpoint=\"/v1/completions\"} 2",
                "smg_http_requests_total{method=\"POST\",path=\"/v1/completions\"} 3.0",
                "smg_http_requests_total{method=\"GET\",path=\"/v1/completions\"} 1.0",
                "smg_http_request_duration_seconds_count{method=\"POST\",path=\"/v1/chat/completions\"} 2",
                "smg_http_responses_total{error_code=\"\",status_code=\"200\"} 3.0",
                "smg_http_responses_total{error_code=\"not_found\",status_code=\"404\"} 1.0",
                "smg_http_responses_total{error_code=\"no_available_workers\",status_code=\"503\"} 1.0",
                "smg_http_responses_total{error_code=\"\",status_code=\"799\"} 1.0",
                "caravan_forward_outcomes_total{outcome=\"completed\"} 3.0",
                "caravan_forward_outcomes_total{outcome=\"timeout\"} 1.0");
        assertThat(scrape).doesNotContain("caravan_time_to_first_byte_seconds_count{endpoint=\"/v1/chat/completions\"}");
    }

    @Test
    void aRequestWithoutAnExchangeCountsAsMethodOther() {
        metrics.onRequestComplete(null, "/health", 200, 1_000_000);

        assertThat(registry.scrape()).contains("caravan_requests_total{endpoint=\"/health\",status=\"200\"} 1.0",
                "smg_http_requests_total{method=\"OTHER\",path=\"/health\"} 1.0",
                "smg_http_responses_total{error_code=\"\",status_code=\"200\"} 1.0");
    }

    @Test
    void eachDecisionCountsUnderItsPolicyBranchAndWorkerAndSglangBranchesOnlyForItsPolicies() {
        Worker a = Worker.builder("http://127.0.0.1:30001").build();
        metrics.accept(Decision.of(a, "cache_aware", "cache_hit"));
        metrics.accept(Decision.of(a, "cache_aware", "cache_hit"));
        metrics.accept(Decision.of(a, "cache_aware", "balance"));
        metrics.accept(Decision.of(a, "prefix_hash", "hash"));

        String role = a.role().wireName();
        String model = a.modelId();
        assertThat(registry.scrape()).contains(
                "caravan_policy_decisions_total{branch=\"cache_hit\",policy=\"cache_aware\"} 2.0",
                "caravan_policy_decisions_total{branch=\"balance\",policy=\"cache_aware\"} 1.0",
                "caravan_policy_decisions_total{branch=\"hash\",policy=\"prefix_hash\"} 1.0",
                "smg_worker_selection_total{connection_mode=\"http\",model=\"" + model + "\",policy=\"cache_aware\","
                        + "worker_type=\"" + role + "\"} 3.0",
                "smg_worker_selection_total{connection_mode=\"http\",model=\"" + model + "\",policy=\"prefix_hash\","
                        + "worker_type=\"" + role + "\"} 1.0",
                "smg_prefix_hash_policy_branch_total{branch=\"hash\"} 1.0")
                .doesNotContain("smg_cache_aware_policy_branch_total");
    }
}
