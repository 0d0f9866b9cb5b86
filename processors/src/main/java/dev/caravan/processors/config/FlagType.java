package dev.caravan.processors.config;

import java.util.List;

/**
 * How a command-line flag consumes arguments and how its property value is validated.
 *
 * <p>Every flag binds to one {@code caravan.*} property whose value is a string; the type decides how many command-line
 * values the flag takes and how the string is checked:
 * <ul>
 *   <li>{@link #SWITCH}: no value ({@code --pd-disaggregation}); the property becomes {@code true}. A property or
 *       environment value must be {@code true} or {@code false}.</li>
 *   <li>{@link #STRING}, {@link #INT}, {@link #LONG}, {@link #DOUBLE}, {@link #BOOLEAN}: exactly one value.</li>
 *   <li>{@link #LIST}: one or more values up to the next {@code --flag} ({@code --worker-urls a b c}); the property holds
 *       them comma-separated.</li>
 *   <li>{@link #GROUPS}: the flag may repeat and each occurrence takes one or more values
 *       ({@code --prefill http://p1:8080 9000 --prefill http://p2:8080}); the property holds the occurrences
 *       comma-separated, the values of one occurrence space-separated ({@code http://p1:8080 9000,http://p2:8080}).</li>
 * </ul>
 */
public enum FlagType {
    SWITCH,
    STRING,
    INT,
    LONG,
    DOUBLE,
    BOOLEAN,
    LIST,
    GROUPS;

    /** True when the flag takes values up to the next {@code --flag} rather than exactly one. */
    public boolean variadic() {
        return this == LIST || this == GROUPS;
    }

    /**
     * Checks a property value; returns an error message naming the key and the bad value, or null when valid.
     * Empty values are always valid (they mean "unset").
     */
    public String validate(String key, String value) {
        if (value == null || value.isEmpty()) {
            return null;
        }
        try {
            switch (this) {
                case INT -> Integer.parseInt(value.trim());
                case LONG -> Long.parseLong(value.trim());
                case DOUBLE -> {
                    double d = Double.parseDouble(value.trim());
                    if (Double.isNaN(d) || Double.isInfinite(d)) {
                        return key + " must be a finite number, was '" + value + "'";
                    }
                }
                case SWITCH, BOOLEAN -> {
                    String v = value.trim();
                    if (!v.equalsIgnoreCase("true") && !v.equalsIgnoreCase("false")) {
                        return key + " must be true or false, was '" + value + "'";
                    }
                }
                default -> {
                    // STRING, LIST, GROUPS: any text
                }
            }
        } catch (NumberFormatException e) {
            return key + " must be " + (this == DOUBLE ? "a number" : "an integer") + ", was '" + value + "'";
        }
        return null;
    }

    /** Joins the command-line values of one flag occurrence into the property representation. */
    String join(List<String> values) {
        return this == GROUPS ? String.join(" ", values) : String.join(",", values);
    }
}
