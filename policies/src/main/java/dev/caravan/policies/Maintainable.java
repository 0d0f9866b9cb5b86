package dev.caravan.policies;

import java.time.Duration;

/**
 * A policy with periodic housekeeping: cache_aware's tree eviction, bucket's boundary re-balancing, manual's idle-key
 * sweep. Policies own no threads; the gateway runs {@link #runMaintenance()} from a timer every
 * {@link #maintenanceInterval()}, on one thread at a time, concurrently with {@code select} calls.
 *
 * <pre>{@code
 * if (policy instanceof Maintainable m && !m.maintenanceInterval().isZero()) {
 *     timer.every(m.maintenanceInterval(), m::runMaintenance);
 * }
 * }</pre>
 */
public interface Maintainable {

    /** How often to run; {@link Duration#ZERO} means never (maintenance disabled by configuration). */
    Duration maintenanceInterval();

    /** One housekeeping pass. Safe to call concurrently with selection; must not throw for ordinary state. */
    void runMaintenance();
}
