package dev.caravan.policies;

import java.time.Duration;
import java.util.Objects;

/**
 * Validation used by the config records' compact constructors. Every message names the record component, the option
 * key it is configured by, and the rejected value, e.g. {@code "cacheThreshold (cache-threshold) must be in [0,1], was
 * 1.5"}.
 */
final class Checks {

    private Checks() {
    }

    static double inUnitInterval(double v, String component, String key) {
        if (!(v >= 0.0 && v <= 1.0)) {
            throw new IllegalArgumentException(label(component, key) + " must be in [0,1], was " + v);
        }
        return v;
    }

    static double nonNegativeFinite(double v, String component, String key) {
        if (!(v >= 0.0) || Double.isInfinite(v)) {
            throw new IllegalArgumentException(label(component, key) + " must be a finite number >= 0, was " + v);
        }
        return v;
    }

    static double positiveFinite(double v, String component, String key) {
        if (!(v > 0.0) || Double.isInfinite(v)) {
            throw new IllegalArgumentException(label(component, key) + " must be a finite number > 0, was " + v);
        }
        return v;
    }

    static long atLeast(long v, long min, String component, String key) {
        if (v < min) {
            throw new IllegalArgumentException(label(component, key) + " must be >= " + min + ", was " + v);
        }
        return v;
    }

    static long atMost(long v, long max, String component, String key) {
        if (v > max) {
            throw new IllegalArgumentException(label(component, key) + " must be <= " + max + ", was " + v);
        }
        return v;
    }

    static Duration nonNegative(Duration d, String component, String key) {
        Objects.requireNonNull(d, component);
        if (d.isNegative()) {
            throw new IllegalArgumentException(label(component, key) + " must be >= 0 seconds, was " + d.toSeconds()
                    + "s");
        }
        return d;
    }

    static Duration positive(Duration d, String component, String key) {
        Objects.requireNonNull(d, component);
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(label(component, key) + " must be > 0 seconds, was " + d.toSeconds()
                    + "s");
        }
        return d;
    }

    private static String label(String component, String key) {
        return component + " (" + key + ")";
    }
}
