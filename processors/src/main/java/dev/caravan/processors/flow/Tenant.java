package dev.caravan.processors.flow;

import dev.caravan.processors.ExchangeProperty;
import dev.caravan.processors.admission.FlowKey;

/**
 * Who a request is for: a tenant of the tenants file, or {@code other} (every caller the file does not name).
 *
 * @param name        the tenant's name; {@code other} for unknown callers
 * @param tenantClass its priority class
 * @param limits      its rate limits
 */
public record Tenant(String name, TenantClass tenantClass, TenantLimits limits) {

    /** The request's tenant (written by {@code identifyTenant}). */
    public static final ExchangeProperty<Tenant> PROPERTY = ExchangeProperty.of("caravanTenant", Tenant.class);

    /** Unknown callers without a tenants file: the default class, no limits. */
    public static final Tenant OTHER = new Tenant(FlowKey.OTHER, TenantClass.DEFAULT, TenantLimits.NONE);

    public Tenant {
        if (name == null || name.isBlank() || tenantClass == null || limits == null) {
            throw new IllegalArgumentException("a tenant needs a name, a class and limits");
        }
    }

    /** The key admission queues it by; its metric label is its name (the file's tenants are few: bounded). */
    public FlowKey flowKey() {
        return new FlowKey(name, name, tenantClass.name(), tenantClass.priority(), tenantClass.queueTimeout());
    }
}
