package dev.caravan.processors.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Counter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;

import dev.caravan.processors.admission.FlowKey;
import dev.caravan.processors.admission.Rejection;
import dev.caravan.processors.flow.TenantMetrics;

class ScrapeMetricsProcessorTest {

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final ScrapeMetricsProcessor scrape = new ScrapeMetricsProcessor(registry, new GatewayMetrics(registry));

    @Test
    void theGatewayPortsTextLeavesOutEveryPerTenantMetricAndKeepsTheRest() {
        TenantMetrics tenants = new TenantMetrics(registry);
        FlowKey acme = new FlowKey("acme", "acme", "gold", 0, null);
        tenants.onAdmitted(acme, false, 1_000);
        tenants.onRejected(acme, Rejection.QUEUE_FULL);
        tenants.onThrottled(acme, "requests");
        Counter.builder("caravan.example").tag("worker", "http://10.0.0.5:8000").register(registry).increment();

        String full = scrape.scrape();
        String port = scrape.scrapeWithoutTenants();

        assertThat(full).contains("caravan_tenant_admitted_total{class=\"gold\",tenant=\"acme\"} 1.0")
                .contains("caravan_tenant_shed_total{").contains("caravan_tenant_throttled_total{")
                .contains("caravan_tenant_queue_wait_seconds_count{tenant=\"acme\"} 1");
        assertThat(port).doesNotContain("tenant=").doesNotContain("caravan_tenant_")
                .contains("caravan_tenants_configured 0.0")
                .contains("caravan_example_total{worker=\"http://10.0.0.5:8000\"} 1.0");
        assertThat(port.lines().filter(l -> !l.contains("caravan_tenant_")).toList())
                .isEqualTo(full.lines().filter(l -> !l.contains("caravan_tenant_")).toList());
    }

    @Test
    void dropsWholeMetricsWhoseSamplesCarryTheTenantLabelAndNothingElse() {
        String text = """
                # HELP a_total A
                # TYPE a_total counter
                a_total{tenant="acme",class="gold"} 1.0
                # TYPE b gauge
                b{worker="x,tenant=\\"y\\""} 2.0
                # HELP c_seconds C
                # TYPE c_seconds summary
                c_seconds_count{reason="r",tenant="other"} 3
                c_seconds_sum{reason="r",tenant="other"} 0.5
                # HELP d D
                # TYPE d gauge
                d 4.0
                """;
        assertThat(ScrapeMetricsProcessor.withoutTenants(text)).isEqualTo("""
                # TYPE b gauge
                b{worker="x,tenant=\\"y\\""} 2.0
                # HELP d D
                # TYPE d gauge
                d 4.0
                """);
    }

    @Test
    void withoutPerTenantMetricsBothTextsAreTheRegistrysOwnScrape() {
        Counter.builder("caravan.example").register(registry).increment();
        assertThat(scrape.scrapeWithoutTenants()).isEqualTo(registry.scrape()).isEqualTo(scrape.scrape());
    }
}
