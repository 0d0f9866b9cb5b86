package dev.caravan.processors.flow;

import java.time.Duration;

/**
 * A priority class of the tenants file: strict priority between classes (0 is served first), fair share by tokens
 * within one.
 *
 * @param name         the class's name (a metric label)
 * @param priority     0 or more; a queued request of a lower number always goes first
 * @param queueTimeout how long its requests may wait for a slot before 408, or null for {@code --queue-timeout-secs}
 */
public record TenantClass(String name, int priority, Duration queueTimeout) {

    /** The class of callers when the file declares none named {@code default}: priority 0, the global timeout. */
    public static final TenantClass DEFAULT = new TenantClass("default", 0, null);

    public TenantClass {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("a class needs a name");
        }
        if (priority < 0) {
            throw new IllegalArgumentException("class " + name + ": priority must be >= 0, was " + priority);
        }
        if (queueTimeout != null && (queueTimeout.isNegative() || queueTimeout.isZero())) {
            throw new IllegalArgumentException("class " + name + ": queueTimeoutSecs must be >= 1, was "
                    + queueTimeout.toSeconds());
        }
    }
}
