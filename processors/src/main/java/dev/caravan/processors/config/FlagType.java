package dev.caravan.processors.config;

import java.util.List;

/**
 * How a command-line flag consumes arguments, and the form its property value must have.
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
     * What a value of this type must look like, for messages and docs: "an integer", "a number", "true or false"; empty
     * for text types, which take any value.
     */
    public String noun() {
        return switch (this) {
            case INT, LONG -> "an integer";
            case DOUBLE -> "a number";
            case SWITCH, BOOLEAN -> "true or false";
            default -> "";
        };
    }

    /**
     * True when a non-empty value has this type's form: an {@code int} or {@code long}, a finite number, or
     * {@code true}/{@code false} (any case). Text types accept anything. Ranges and allowed values are the row's
     * ({@link CaravanFlag#check}).
     */
    public boolean accepts(String value) {
        String v = value.trim();
        try {
            switch (this) {
                case INT -> Integer.parseInt(v);
                case LONG -> Long.parseLong(v);
                case DOUBLE -> {
                    double d = Double.parseDouble(v);
                    return !Double.isNaN(d) && !Double.isInfinite(d);
                }
                case SWITCH, BOOLEAN -> {
                    return v.equalsIgnoreCase("true") || v.equalsIgnoreCase("false");
                }
                default -> {
                    // STRING, LIST, GROUPS: any text
                }
            }
        } catch (NumberFormatException e) {
            return false;
        }
        return true;
    }

    /** True for the numeric types, whose values a {@link ValueRange} can bound. */
    public boolean numeric() {
        return this == INT || this == LONG || this == DOUBLE;
    }

    /** Joins the command-line values of one flag occurrence into the property representation. */
    String join(List<String> values) {
        return this == GROUPS ? String.join(" ", values) : String.join(",", values);
    }
}
