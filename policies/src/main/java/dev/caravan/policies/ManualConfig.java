package dev.caravan.policies;

import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * Configuration of {@code manual} (sticky routing by {@code X-SMG-Routing-Key}).
 *
 * @param evictionInterval  how often the gateway sweeps idle keys ({@link Maintainable}); {@link Duration#ZERO} disables
 *                          the sweep; default 60 s
 * @param maxIdle           a key not seen for at least this long is forgotten; {@link Duration#ZERO} disables the sweep;
 *                          default 14,400 s (4 h)
 * @param assignmentMode    how a new key (or a key whose workers are all gone) picks a worker; default
 *                          {@link AssignmentMode#MIN_GROUP} (SGLang's is {@code random}: keys then land unevenly, max/mean
 *                          share 1.17 against 1.06 on b2b, and two gateways' draws differ; docs/design/routing-core.md)
 */
public record ManualConfig(Duration evictionInterval, Duration maxIdle, AssignmentMode assignmentMode)
        implements PolicyConfig {

    public static final Duration DEFAULT_EVICTION_INTERVAL = Duration.ofSeconds(60);
    public static final Duration DEFAULT_MAX_IDLE = Duration.ofSeconds(14_400);
    public static final AssignmentMode DEFAULT_ASSIGNMENT_MODE = AssignmentMode.MIN_GROUP;

    /** SGLang's {@code ManualAssignmentMode}; ties among minima are broken uniformly at random in every mode. */
    public enum AssignmentMode {
        /** Uniformly random healthy worker. */
        RANDOM,
        /** Fewest in-flight requests ({@link Worker#load()}). */
        MIN_LOAD,
        /** Fewest routing keys currently assigned to the worker. */
        MIN_GROUP;

        /** {@code random}, {@code min_load} or {@code min_group}. */
        public String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** Case-insensitive parse; the error lists the valid modes. */
        public static AssignmentMode parse(String value) {
            for (AssignmentMode m : values()) {
                if (m.wireName().equalsIgnoreCase(value.trim())) {
                    return m;
                }
            }
            throw new IllegalArgumentException("option " + ASSIGNMENT_MODE + " must be one of "
                    + Arrays.stream(values()).map(AssignmentMode::wireName).collect(Collectors.joining(", "))
                    + ", was '" + value + "'");
        }
    }

    public ManualConfig {
        Checks.nonNegative(evictionInterval, "evictionInterval", EVICTION_INTERVAL);
        Checks.nonNegative(maxIdle, "maxIdle", MAX_IDLE_SECS);
        Objects.requireNonNull(assignmentMode, "assignmentMode");
    }

    public static ManualConfig defaults() {
        return new ManualConfig(DEFAULT_EVICTION_INTERVAL, DEFAULT_MAX_IDLE, DEFAULT_ASSIGNMENT_MODE);
    }

    static ManualConfig from(PolicyOptions o) {
        return new ManualConfig(
                o.getSeconds(EVICTION_INTERVAL, DEFAULT_EVICTION_INTERVAL),
                o.getSeconds(MAX_IDLE_SECS, DEFAULT_MAX_IDLE),
                AssignmentMode.parse(o.getString(ASSIGNMENT_MODE, DEFAULT_ASSIGNMENT_MODE.wireName())));
    }

    public ManualConfig withAssignmentMode(AssignmentMode mode) {
        return new ManualConfig(evictionInterval, maxIdle, mode);
    }

    /** True when the TTL sweep runs: both the interval and the idle limit are positive, as in SGLang. */
    public boolean ttlEnabled() {
        return !evictionInterval.isZero() && !maxIdle.isZero();
    }

    @Override
    public <R> R accept(Visitor<R> visitor) {
        return visitor.visit(this);
    }

    @Override
    public String policyName() {
        return PolicyName.MANUAL.wireName();
    }
}
