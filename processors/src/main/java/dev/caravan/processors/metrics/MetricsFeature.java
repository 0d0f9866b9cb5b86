package dev.caravan.processors.metrics;

import static dev.caravan.processors.config.FlagType.INT;
import static dev.caravan.processors.config.FlagType.LIST;
import static dev.caravan.processors.config.FlagType.STRING;

import java.time.Duration;
import java.util.List;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Vertx;

import dev.caravan.components.http.MetricsHttpServer;
import dev.caravan.processors.config.CaravanFlag;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.config.FlagRows;
import dev.caravan.processors.config.Sections;
import dev.caravan.processors.feature.Feature;
import dev.caravan.processors.feature.Wiring;

/**
 * Prometheus metrics: the scrape of {@code GET /metrics} on the gateway's port ({@code checkMetricsAccess},
 * {@code scrapeMetrics}), the separate metrics listener ({@code --prometheus-*}) and the histogram buckets. The
 * request meters themselves ({@link GatewayMetrics}) are built by the gateway's assembler before any feature, since
 * its server records them.
 */
public final class MetricsFeature implements Feature {

    // ---- bean names (admin.camel.yaml) ------------------------------------------------------------------------------

    public static final String CHECK_METRICS_ACCESS = "checkMetricsAccess";
    public static final String SCRAPE_METRICS = "scrapeMetrics";

    private static final FlagRows ROWS = new FlagRows();

    public static final CaravanFlag PROMETHEUS_PORT = ROWS.row("--prometheus-port", "caravan.prometheus.port", INT,
            Sections.OBSERVABILITY)
            .defaultValue(GatewayConfig.DEFAULT_PROMETHEUS_PORT).special("-1", "none").range(0, 65535)
            .describe("Port of the metrics listener (GET /metrics in Prometheus text, every series, no key: the scrape "
                    + "target, to be reachable by the monitoring system only); 0 picks a free one; -1: no metrics "
                    + "listener.");
    public static final CaravanFlag PORT_METRICS = ROWS.row("--port-metrics", "caravan.port-metrics", STRING,
            Sections.OBSERVABILITY)
            .defaultValue(CheckMetricsAccessProcessor.GUARDED)
            .oneOf(CheckMetricsAccessProcessor.GUARDED, CheckMetricsAccessProcessor.OFF)
            .describe("GET /metrics on --port (SGLang serves metrics only on the metrics listener): 'guarded' (with "
                    + "--admin-api-key or --api-key the scrape must send one of them, else 401; per-tenant series are "
                    + "left out) or 'off' (404). The metrics listener serves every series, without a key.");
    public static final CaravanFlag PROMETHEUS_HOST = ROWS.row("--prometheus-host", "caravan.prometheus.host", STRING,
            Sections.OBSERVABILITY)
            .defaultValue(GatewayConfig.DEFAULT_PROMETHEUS_HOST)
            .describe("Address the metrics listener binds.");
    public static final CaravanFlag PROMETHEUS_DURATION_BUCKETS = ROWS.row("--prometheus-duration-buckets",
            "caravan.prometheus.duration-buckets", LIST, Sections.OBSERVABILITY)
            .pattern("\\d+(\\.\\d+)?([eE][-+]?\\d+)?", "positive numbers of seconds")
            .describe("Bucket bounds, in seconds, of the request-duration and time-to-first-byte histograms "
                    + "(caravan_* and SGLang's smg_*); empty: SGLang's 0.001 to 240 s.");

    @Override
    public List<CaravanFlag> flags() {
        return ROWS.all();
    }

    private MetricsHttpServer listener;

    /** @throws IllegalArgumentException when the metrics listener would share the gateway's own concrete port */
    @Override
    public void wire(Wiring w) {
        GatewayConfig config = w.config();
        ScrapeMetricsProcessor scrape = new ScrapeMetricsProcessor(
                w.get(Wiring.METRICS_REGISTRY, PrometheusMeterRegistry.class),
                w.get(Wiring.GATEWAY_METRICS, GatewayMetrics.class));
        w.bind(CHECK_METRICS_ACCESS, new CheckMetricsAccessProcessor(
                CheckMetricsAccessProcessor.GUARDED.equals(config.get(PORT_METRICS)), config.adminApiKey(),
                config.apiKey()));
        w.bind(SCRAPE_METRICS, scrape);
        listener = metricsListener(config, w.vertx(), scrape);
    }

    /** The metrics listener of {@code --prometheus-port}, or null when it is -1 or before {@link #wire}. */
    public MetricsHttpServer listener() {
        return listener;
    }

    @Override
    public void close() {
        if (listener != null) {
            listener.stop();
        }
    }

    /** {@code --prometheus-duration-buckets} in seconds, or SGLang's default buckets when unset. */
    public static List<Duration> durationBuckets(GatewayConfig config) {
        List<String> values = config.getList(PROMETHEUS_DURATION_BUCKETS);
        if (values.isEmpty()) {
            return GatewayMetrics.DEFAULT_DURATION_BUCKETS;
        }
        return values.stream().map(v -> Duration.ofNanos(Math.round(Double.parseDouble(v) * 1e9))).toList();
    }

    private static MetricsHttpServer metricsListener(GatewayConfig config, Vertx vertx, ScrapeMetricsProcessor scrape) {
        int port = config.getInt(PROMETHEUS_PORT);
        if (port < 0) {
            return null;
        }
        if (port != 0 && port == config.port()) {
            throw new IllegalArgumentException("--prometheus-port " + port + " must differ from --port (the gateway's "
                    + "port serves /metrics too; -1 turns the metrics listener off)");
        }
        // every series, per-tenant ones included: the scrape target, reachable by the monitoring system only
        return new MetricsHttpServer(vertx, config.get(PROMETHEUS_HOST), port, scrape::scrape);
    }
}
