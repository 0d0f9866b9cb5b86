package dev.caravan.gateway;

import java.time.Duration;
import java.util.List;

import io.vertx.core.Vertx;

import dev.caravan.processors.config.CoreFlags;
import dev.caravan.components.http.MetricsHttpServer;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.metrics.GatewayMetrics;
import dev.caravan.processors.metrics.MetricsFeature;
import dev.caravan.processors.metrics.ScrapeMetricsProcessor;
import dev.caravan.processors.tls.TlsSettings;

/**
 * The feature configs of the listeners and their observability: the metrics listener ({@code --prometheus-*}), the
 * histogram buckets, and the TLS material of the gateway's listener and of its clients to workers.
 */
final class ObservabilityBeans {

    private ObservabilityBeans() {
    }

    /**
     * The TLS material of {@code --tls-*}, {@code --client-*} and {@code --ca-cert-paths}.
     *
     * @throws IllegalArgumentException naming the flag of a missing half or an unreadable file
     */
    static TlsSettings tls(GatewayConfig config) {
        return TlsSettings.of(config.get(CoreFlags.TLS_CERT_PATH), config.get(CoreFlags.TLS_KEY_PATH),
                config.get(CoreFlags.CLIENT_CERT_PATH), config.get(CoreFlags.CLIENT_KEY_PATH),
                config.getList(CoreFlags.CA_CERT_PATHS));
    }

    /** {@code --prometheus-duration-buckets} in seconds, or SGLang's default buckets when unset. */
    static List<Duration> durationBuckets(GatewayConfig config) {
        List<String> values = config.getList(MetricsFeature.PROMETHEUS_DURATION_BUCKETS);
        if (values.isEmpty()) {
            return GatewayMetrics.DEFAULT_DURATION_BUCKETS;
        }
        return values.stream().map(v -> Duration.ofNanos(Math.round(Double.parseDouble(v) * 1e9))).toList();
    }

    /**
     * The metrics listener, or null with {@code --prometheus-port -1}.
     *
     * @throws IllegalArgumentException when it would share the gateway's own concrete port
     */
    static MetricsHttpServer metricsListener(GatewayConfig config, Vertx vertx, ScrapeMetricsProcessor scrape) {
        int port = config.getInt(MetricsFeature.PROMETHEUS_PORT);
        if (port < 0) {
            return null;
        }
        if (port != 0 && port == config.port()) {
            throw new IllegalArgumentException("--prometheus-port " + port + " must differ from --port (the gateway's "
                    + "port serves /metrics too; -1 turns the metrics listener off)");
        }
        // every series, per-tenant ones included: the scrape target, reachable by the monitoring system only
        return new MetricsHttpServer(vertx, config.get(MetricsFeature.PROMETHEUS_HOST), port, scrape::scrape);
    }
}
