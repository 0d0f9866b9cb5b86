package dev.caravan.processors.metrics;

import java.util.regex.Pattern;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;

/**
 * Route step {@code scrapeMetrics} ({@code GET /metrics} on the gateway port, after {@code checkMetricsAccess}):
 * refreshes the scrape-time gauges and answers with the Prometheus text exposition of the registry (Caravan's meters,
 * Camel's route meters when camel-main enables them, JVM meters) without the per-tenant metrics: a metric with a
 * {@value #TENANT_LABEL} label names the tenants of the tenants file, which only the metrics listener
 * ({@code --prometheus-port}, {@link #scrape()}) shows.
 *
 * <p>The text format keeps each metric's lines together, its {@code # HELP} and {@code # TYPE} lines first, and
 * Prometheus gives a metric one set of label names, so a metric carries the label on every sample or on none: the
 * filter drops whole metrics, comment lines included.
 */
public final class ScrapeMetricsProcessor implements Processor {

    /** Prometheus text exposition format 0.0.4. */
    public static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";
    /** The label of the per-tenant metrics ({@code caravan_tenant_*}). */
    public static final String TENANT_LABEL = "tenant";

    /** A sample line with the label: label values escape their quotes, so {@code {tenant="} or {@code ,tenant="}. */
    private static final Pattern TENANT_SAMPLE = Pattern.compile("[{,]" + TENANT_LABEL + "=\"");

    private final PrometheusMeterRegistry registry;
    private final GatewayMetrics metrics;

    public ScrapeMetricsProcessor(PrometheusMeterRegistry registry, GatewayMetrics metrics) {
        this.registry = registry;
        this.metrics = metrics;
    }

    @Override
    public void process(Exchange exchange) {
        exchange.getMessage().setHeader(Exchange.CONTENT_TYPE, CONTENT_TYPE);
        exchange.getMessage().setBody(scrapeWithoutTenants());
    }

    /** The whole text exposition, scrape-time gauges refreshed: what the metrics listener serves. */
    public String scrape() {
        metrics.refreshTreeGauges();
        return registry.scrape();
    }

    /** The text exposition without the metrics that carry a {@value #TENANT_LABEL} label: the gateway port's. */
    public String scrapeWithoutTenants() {
        return withoutTenants(scrape());
    }

    /** {@code text} without every metric whose samples carry a {@value #TENANT_LABEL} label. */
    static String withoutTenants(String text) {
        StringBuilder out = new StringBuilder(text.length());
        StringBuilder metric = new StringBuilder();
        String name = null;
        boolean perTenant = false;
        for (String line : text.split("\n")) {
            if (line.startsWith("# ")) {
                String[] parts = line.split(" ", 4); // "#", "HELP" or "TYPE", the name, the rest
                String lineName = parts.length > 2 ? parts[2] : "";
                if (!lineName.equals(name)) { // the next metric begins
                    flush(out, metric, perTenant);
                    name = lineName;
                    perTenant = false;
                }
            } else if (!line.isEmpty() && TENANT_SAMPLE.matcher(line).find()) {
                perTenant = true;
            }
            metric.append(line).append('\n');
        }
        flush(out, metric, perTenant);
        return out.toString();
    }

    private static void flush(StringBuilder out, StringBuilder metric, boolean drop) {
        if (!drop) {
            out.append(metric);
        }
        metric.setLength(0);
    }
}
