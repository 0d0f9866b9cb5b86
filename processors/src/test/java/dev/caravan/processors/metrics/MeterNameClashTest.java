package dev.caravan.processors.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.apache.camel.Exchange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.caravan.policies.Worker;
import dev.caravan.processors.CaravanExchangeProperties;
import dev.caravan.processors.StartedCamel;
import dev.caravan.processors.forward.Usage;
import dev.caravan.processors.tokens.TokensMetrics;

/**
 * Prometheus takes one set of labels per metric name and refuses a second meter of the same name with other labels
 * (logged, and missing from every scrape). The gateway's per-worker token counts and the prompt-token meters share
 * one registry; both must be scraped.
 */
class MeterNameClashTest {

    @RegisterExtension
    static final StartedCamel CAMEL = new StartedCamel();

    @Test
    void theEnginesTokenCountsAndTheTokenSourcesAreBothScraped() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        List<String> refused = new CopyOnWriteArrayList<>();
        registry.config().onMeterRegistrationFailed((id, reason) -> refused.add(id.getName() + ": " + reason));
        GatewayMetrics gateway = new GatewayMetrics(registry);
        new TokensMetrics(registry);
        Worker worker = Worker.builder("http://127.0.0.1:30001").build();
        gateway.onWorkerAdded(worker);

        Exchange exchange = CAMEL.exchange();
        CaravanExchangeProperties.WORKER.set(exchange, worker);
        Usage.PROPERTY.set(exchange, new Usage(120, 96, 5));
        gateway.onRequestComplete(exchange, "/v1/chat/completions", 200, 1_000_000);

        assertThat(refused).isEmpty();
        String scrape = registry.scrape();
        assertThat(scrape).contains("caravan_prompt_tokens_total{worker=\"http://127.0.0.1:30001\"} 120.0",
                "caravan_cached_tokens_total{worker=\"http://127.0.0.1:30001\"} 96.0",
                "caravan_prompt_tokens_requests_total{source=\"none\"} 0.0");
    }
}
