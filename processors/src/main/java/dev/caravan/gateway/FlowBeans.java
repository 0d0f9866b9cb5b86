package dev.caravan.gateway;

import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;

import dev.caravan.processors.admission.AdmissionController;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.flow.FlowFeature;
import dev.caravan.processors.flow.IdentifyTenantProcessor;
import dev.caravan.processors.flow.LimitTenantRateProcessor;
import dev.caravan.processors.flow.ReloadTenantsProcessor;
import dev.caravan.processors.flow.TenantDirectory;
import dev.caravan.processors.flow.TenantMetrics;
import dev.caravan.processors.flow.TenantRateLimiter;

/**
 * Multi-tenant flow control (docs/configuration.md#tenants-and-flow-control): the tenants in force
 * ({@code --tenants-file}, read now — a bad file stops the start — and reloaded by the {@code tenants-reload} route),
 * the per-tenant rate limiter, and the beans {@code identifyTenant}, {@code limitTenantRate} and {@code reloadTenants}.
 * Priority and fair queuing are the admission queue's ({@link ReliabilityBeans}); the per-tenant meters are an
 * admission observer built there.
 */
public final class FlowBeans {

    private final TenantDirectory directory;
    private final TenantRateLimiter limiter;

    private FlowBeans(TenantDirectory directory, TenantRateLimiter limiter) {
        this.directory = directory;
        this.limiter = limiter;
    }

    /** @throws IllegalArgumentException naming the tenants file and what is wrong with it */
    static FlowBeans define(GatewayConfig config, AdmissionController admission, TenantMetrics metrics,
                            Map<String, Object> beans) {
        TenantDirectory directory = enabled(config)
                ? TenantDirectory.load(Path.of(config.get(FlowFeature.TENANTS_FILE)), metrics)
                : TenantDirectory.none();
        metrics.configured(directory.current());
        TenantRateLimiter limiter = new TenantRateLimiter(Clock.systemUTC());
        beans.put(BeanNames.IDENTIFY_TENANT, new IdentifyTenantProcessor(directory));
        beans.put(BeanNames.LIMIT_TENANT_RATE, new LimitTenantRateProcessor(limiter, admission, metrics));
        beans.put(BeanNames.RELOAD_TENANTS, new ReloadTenantsProcessor(directory));
        beans.put(BeanNames.TENANT_DIRECTORY, directory);
        beans.put(BeanNames.TENANT_RATE_LIMITER, limiter);
        return new FlowBeans(directory, limiter);
    }

    static boolean enabled(GatewayConfig config) {
        return config.isSet(FlowFeature.TENANTS_FILE);
    }

    /** Placeholders of the {@code tenants-reload} route. */
    static Map<String, String> properties(GatewayConfig config) {
        return Map.of("caravan.derived.tenants-reload-enabled", Boolean.toString(enabled(config)),
                "caravan.derived.tenants-reload-period-ms",
                Long.toString(config.getLong(FlowFeature.TENANTS_RELOAD_INTERVAL_SECS) * 1000));
    }

    public TenantDirectory directory() {
        return directory;
    }

    public TenantRateLimiter limiter() {
        return limiter;
    }
}
