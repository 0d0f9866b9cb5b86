package dev.caravan.processors.config;

import java.math.BigDecimal;

/**
 * The closed interval a numeric row's values must fall in, either end open-ended ({@code null}). Bounds are exact
 * decimals, so one type serves {@code int}, {@code long} and {@code double} rows without rounding at the edges.
 *
 * @param min smallest accepted value, or null for no lower bound (the type's own)
 * @param max largest accepted value, or null for no upper bound (the type's own)
 */
public record ValueRange(BigDecimal min, BigDecimal max) {

    public ValueRange {
        if (min == null && max == null) {
            throw new IllegalArgumentException("a range needs a bound");
        }
        if (min != null && max != null && min.compareTo(max) > 0) {
            throw new IllegalArgumentException("range min " + min + " is above max " + max);
        }
    }

    /** {@code [min, max]} of whole numbers. */
    public static ValueRange of(long min, long max) {
        return new ValueRange(BigDecimal.valueOf(min), BigDecimal.valueOf(max));
    }

    /** {@code [min, max]} of numbers. */
    public static ValueRange of(double min, double max) {
        return new ValueRange(BigDecimal.valueOf(min), BigDecimal.valueOf(max));
    }

    /** {@code >= min} of whole numbers. */
    public static ValueRange atLeast(long min) {
        return new ValueRange(BigDecimal.valueOf(min), null);
    }

    /** {@code >= min} of numbers. */
    public static ValueRange atLeast(double min) {
        return new ValueRange(BigDecimal.valueOf(min), null);
    }

    /** True when the value (already known to parse as the row's numeric type) lies in the range. */
    public boolean contains(BigDecimal value) {
        return (min == null || value.compareTo(min) >= 0) && (max == null || value.compareTo(max) <= 0);
    }

    /** The range as the docs and messages show it: {@code [0, 65535]}, {@code >= 1}, {@code <= 64}. */
    @Override
    public String toString() {
        if (min != null && max != null) {
            return "[" + plain(min) + ", " + plain(max) + "]";
        }
        return min != null ? ">= " + plain(min) : "<= " + plain(max);
    }

    /** The range after a type noun: {@code in [0, 65535]}, {@code >= 1}. */
    public String phrase() {
        return min != null && max != null ? "in " + this : toString();
    }

    private static String plain(BigDecimal d) {
        return d.stripTrailingZeros().toPlainString();
    }
}
