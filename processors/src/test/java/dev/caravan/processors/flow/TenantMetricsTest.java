package dev.caravan.processors.flow;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import dev.caravan.processors.admission.FlowKey;
import dev.caravan.processors.admission.Rejection;

class TenantMetricsTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final TenantMetrics metrics = new TenantMetrics(registry);
    private final FlowKey acme = new Tenant("acme", new TenantClass("interactive", 0, null), TenantLimits.NONE)
            .flowKey();

    @Test
    void countsAdmittedShedThrottledAndQueueWaitPerTenant() {
        metrics.onAdmitted(acme, false, 0);
        metrics.onAdmitted(acme, true, 2_000_000_000L);
        metrics.onRejected(acme, Rejection.QUEUE_TIMEOUT);
        metrics.onRejected(FlowKey.DEFAULT, Rejection.CLIENT_GONE);
        metrics.onThrottled(acme, RateVerdict.OUTPUT_TOKENS);

        assertThat(registry.get("caravan.tenant.admitted").tags("tenant", "acme", "class", "interactive").counter()
                .count()).isEqualTo(2);
        assertThat(registry.get("caravan.tenant.queue.wait").tags("tenant", "acme").timer().totalTime(TimeUnit.SECONDS))
                .isEqualTo(2.0);
        assertThat(registry.get("caravan.tenant.shed").tags("tenant", "acme", "reason", "queue_timeout").counter()
                .count()).isEqualTo(1);
        assertThat(registry.get("caravan.tenant.shed").tags("tenant", "other", "reason", "client_gone").counter()
                .count()).isEqualTo(1);
        assertThat(registry.get("caravan.tenant.throttled").tags("tenant", "acme", "limit", "output_tokens").counter()
                .count()).isEqualTo(1);
    }

    @Test
    void tenantLabelsAreTheFilesTenantsAndOther() {
        TenantsConfig config = TenantsFile.parse("tenants: { acme: { apiKeys: [k] } }");
        for (int i = 0; i < 100; i++) {
            metrics.onAdmitted(config.resolve("Bearer caller-" + i, "caller-" + i).flowKey(), false, 0);
        }
        metrics.onAdmitted(config.resolve("Bearer k", null).flowKey(), false, 0);

        assertThat(registry.find("caravan.tenant.admitted").counters()).extracting(c -> c.getId().getTag("tenant"))
                .containsExactlyInAnyOrder("other", "acme");
        assertThat(registry.get("caravan.tenant.admitted").tags("tenant", "other").counter().count()).isEqualTo(100);
    }

    @Test
    void reloadsAreCountedByResultAndTheConfiguredTenantsGauged() {
        metrics.onReload(true, TenantsFile.parse("tenants: { a: {}, b: {} }"));
        metrics.onReload(false, TenantsFile.parse("tenants: { a: {}, b: {} }"));

        assertThat(registry.get("caravan.tenants.reloads").tags("result", "ok").counter().count()).isEqualTo(1);
        assertThat(registry.get("caravan.tenants.reloads").tags("result", "failed").counter().count()).isEqualTo(1);
        assertThat(registry.get("caravan.tenants.configured").gauge().value()).isEqualTo(2);
    }
}
