package dev.caravan.processors.metrics;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;

/**
 * Route step {@code scrapeMetrics} ({@code GET /metrics} on the gateway port; the metrics listener of
 * {@code --prometheus-port} serves the same text through {@link #scrape()}): refreshes the scrape-time gauges and
 * answers with the Prometheus text exposition of the registry (Caravan's meters, Camel's route meters when camel-main
 * enables them, JVM meters).
 */
public final class ScrapeMetricsProcessor implements Processor {

    /** Prometheus text exposition format 0.0.4. */
    public static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private final PrometheusMeterRegistry registry;
    private final GatewayMetrics metrics;

    public ScrapeMetricsProcessor(PrometheusMeterRegistry registry, GatewayMetrics metrics) {
        this.registry = registry;
        this.metrics = metrics;
    }

    @Override
    public void process(Exchange exchange) {
        exchange.getMessage().setHeader(Exchange.CONTENT_TYPE, CONTENT_TYPE);
        exchange.getMessage().setBody(scrape());
    }

    /** The text exposition, scrape-time gauges refreshed (also what the metrics listener serves). */
    public String scrape() {
        metrics.refreshTreeGauges();
        return registry.scrape();
    }
}
