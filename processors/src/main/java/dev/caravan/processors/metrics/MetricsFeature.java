package dev.caravan.processors.metrics;

import static dev.caravan.processors.config.FlagType.INT;
import static dev.caravan.processors.config.FlagType.LIST;
import static dev.caravan.processors.config.FlagType.STRING;

import java.util.List;

import dev.caravan.processors.config.CaravanFlag;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.config.FlagRows;
import dev.caravan.processors.config.Sections;
import dev.caravan.processors.feature.Feature;

/**
 * Prometheus metrics: the separate metrics listener and the histogram buckets.
 */
public final class MetricsFeature implements Feature {

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
}
