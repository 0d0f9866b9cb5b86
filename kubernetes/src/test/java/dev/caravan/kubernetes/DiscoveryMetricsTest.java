package dev.caravan.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;

import dev.caravan.components.podwatch.PodWatchListener;

class DiscoveryMetricsTest {

    @Test
    void exposesThePrometheusNamesTheDocsPromise() {
        PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        DiscoveryMetrics metrics = new DiscoveryMetrics(prometheus);
        metrics.bindWorkerCount(role -> role.ordinal());
        metrics.registered(RegistrationReason.READY);
        metrics.deregistered(DeregistrationReason.NOT_READY);
        metrics.onWatchRestart(PodWatchListener.CAUSE_EXPIRED);

        String scrape = prometheus.scrape();

        assertThat(scrape)
                .contains("caravan_discovery_registrations_total{reason=\"ready\"} 1.0")
                .contains("caravan_discovery_registrations_total{reason=\"restored\"} 0.0")
                .contains("caravan_discovery_deregistrations_total{reason=\"not_ready\"} 1.0")
                .contains("caravan_discovery_deregistrations_total{reason=\"selector_mismatch\"} 0.0")
                .contains("caravan_discovery_watch_restarts_total{cause=\"expired\"} 1.0")
                .contains("caravan_discovery_watch_restarts_total{cause=\"list_failed\"} 0.0")
                .contains("caravan_discovery_workers{role=\"decode\"} 2.0")
                .contains("caravan_discovery_resyncs_total 0.0")
                .contains("caravan_discovery_conflicts_total 0.0")
                .contains("caravan_discovery_watching 0.0");
        metrics.onWatchEstablished();
        assertThat(prometheus.scrape()).contains("caravan_discovery_watching 1.0");
    }
}
