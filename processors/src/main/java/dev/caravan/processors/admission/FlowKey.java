package dev.caravan.processors.admission;

import java.time.Duration;

import dev.caravan.processors.ExchangeProperty;

/**
 * Who a request is for, as admission sees it: the tenant whose fair share it counts against, the metric label it is
 * reported under, its class's priority and queue timeout. Written by {@code identifyTenant}; a request without one is
 * {@link #DEFAULT} (one tenant, one class: plain FIFO, as without flow control).
 *
 * @param tenant       the tenant's name (fair-share and rate-limit identity)
 * @param label        the tenant's metric label: its name when the tenants file names it, else {@code other}
 * @param tenantClass  the class's name (a metric label)
 * @param priority     0 is served first; a queued request of a lower number always goes before one of a higher
 * @param queueTimeout how long it may wait for a slot before 408, or null for {@code --queue-timeout-secs}
 */
public record FlowKey(String tenant, String label, String tenantClass, int priority, Duration queueTimeout) {

    /** The request's key (written by {@code identifyTenant}). */
    public static final ExchangeProperty<FlowKey> PROPERTY = ExchangeProperty.of("caravanFlowKey", FlowKey.class);
    /** Prompt tokens the request is expected to cost, charged to its tenant's fair share when admitted. */
    public static final ExchangeProperty<Long> COST = ExchangeProperty.of("caravanFlowCost", Long.class);

    /** The metric label of every caller the tenants file does not name. */
    public static final String OTHER = "other";
    /** The default class's name. */
    public static final String DEFAULT_CLASS = "default";

    /** Every request, without a tenants file. */
    public static final FlowKey DEFAULT = new FlowKey(OTHER, OTHER, DEFAULT_CLASS, 0, null);

    public FlowKey {
        if (tenant == null || tenant.isBlank() || label == null || tenantClass == null) {
            throw new IllegalArgumentException("tenant, label and tenantClass must be given");
        }
        if (priority < 0) {
            throw new IllegalArgumentException("priority must be >= 0, was " + priority);
        }
        if (queueTimeout != null && (queueTimeout.isNegative() || queueTimeout.isZero())) {
            throw new IllegalArgumentException("queueTimeout must be positive, was " + queueTimeout);
        }
    }
}
