package dev.caravan.processors.flow;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import dev.caravan.processors.MeterKey;
import dev.caravan.processors.admission.AdmissionObserver;
import dev.caravan.processors.admission.FlowKey;
import dev.caravan.processors.admission.Rejection;

/**
 * Per-tenant flow-control meters (Prometheus names): {@code caravan_tenant_admitted_total{tenant,class}},
 * {@code caravan_tenant_shed_total{tenant,reason}} (admission's reasons: queue_full, queue_timeout, rate_limited,
 * shutting_down, client_gone), {@code caravan_tenant_throttled_total{tenant,limit}} (the tenant's own rate limits:
 * requests, input_tokens, output_tokens), {@code caravan_tenant_queue_wait_seconds{tenant}} (admitted requests, 0 when
 * admitted at once), {@code caravan_tenants_reloads_total{result=ok|failed}} and {@code caravan_tenants_configured}.
 *
 * <p>Cardinality is bounded: the {@code tenant} label is a tenant of the tenants file or {@code other} (every caller
 * the file does not name), and classes and reasons are the file's and the code's. Thread-safe.
 */
public final class TenantMetrics implements AdmissionObserver, TenantDirectory.ReloadObserver {

    private final MeterRegistry registry;
    private final Map<MeterKey, Meter> cache = new ConcurrentHashMap<>();
    private volatile int configured;
    /**
     * The meters of the last key admitted: without a tenants file every request has an equal {@code FlowKey}, so
     * admitting is then no meter look-up (design/request-path.md, "Per-request cost").
     */
    private volatile Admitted lastAdmitted;

    private record Admitted(FlowKey key, Counter count, Timer waited) {
    }

    public TenantMetrics(MeterRegistry registry) {
        this.registry = registry;
        Gauge.builder("caravan.tenants.configured", this, m -> m.configured)
                .description("Tenants the tenants file names").register(registry);
    }

    /** Sets the configured-tenants gauge (at start-up; reloads update it themselves). */
    public void configured(TenantsConfig config) {
        configured = config.tenants().size();
    }

    @Override
    public void onAdmitted(FlowKey key, boolean queued, long waitedNanos) {
        Admitted meters = lastAdmitted;
        if (meters == null || !meters.key.equals(key)) {
            meters = new Admitted(key, counter(MeterKey.of("a", key.label(), key.tenantClass()),
                    () -> Counter.builder("caravan.tenant.admitted")
                            .description("Inference requests admitted, by tenant and class")
                            .tags("tenant", key.label(), "class", key.tenantClass()).register(registry)),
                    (Timer) cache.computeIfAbsent(MeterKey.of("w", key.label()),
                            k -> Timer.builder("caravan.tenant.queue.wait")
                                    .description("Time admitted requests waited for a slot, by tenant")
                                    .tag("tenant", key.label()).register(registry)));
            lastAdmitted = meters;
        }
        meters.count.increment();
        meters.waited.record(waitedNanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void onRejected(FlowKey key, Rejection reason) {
        counter(MeterKey.of("s", key.label(), reason.label()), () -> Counter.builder("caravan.tenant.shed")
                .description("Inference requests admission did not serve, by tenant and reason")
                .tags("tenant", key.label(), "reason", reason.label()).register(registry)).increment();
    }

    /** A request refused by its tenant's own rate limit. */
    public void onThrottled(FlowKey key, String limit) {
        counter(MeterKey.of("t", key.label(), limit), () -> Counter.builder("caravan.tenant.throttled")
                .description("Inference requests refused by their tenant's rate limits, by tenant and limit")
                .tags("tenant", key.label(), "limit", limit).register(registry)).increment();
    }

    @Override
    public void onReload(boolean ok, TenantsConfig current) {
        configured(current);
        String result = ok ? "ok" : "failed";
        counter(MeterKey.of("r", result), () -> Counter.builder("caravan.tenants.reloads")
                .description("Reloads of the tenants file, by result").tag("result", result).register(registry))
                .increment();
    }

    private Counter counter(MeterKey key, Supplier<Counter> create) {
        return (Counter) cache.computeIfAbsent(key, k -> create.get());
    }
}
