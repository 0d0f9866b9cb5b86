package dev.caravan.processors.config;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * One row of the configuration table ({@link CaravanFlags}): a command-line flag, the {@code caravan.*} property it
 * binds to, and everything there is to know about its value — type, default, range, allowed values, special values —
 * plus what it means. The same row drives argument parsing, environment-variable lookup, validation
 * ({@link #check}, called once per row by {@link GatewayConfig}), {@code --help} and the generated
 * {@code docs/configuration.md} and {@code config/application.properties}. Rows are declared with {@link Builder}.
 *
 * <p>A value is accepted when it is empty and the row is not {@link #required()} ("unset"), when it is one of the
 * row's special values, or when it has the row's type and lies in its range, is one of its choices and matches its
 * pattern (each where the row has one).
 *
 * @param flag         the SGLang-compatible flag, e.g. {@code --cache-threshold}
 * @param key          the property key, e.g. {@code caravan.policy.cache-threshold}
 * @param type         arity and the form of a value
 * @param defaultValue the default as a property string; empty means "unset"
 * @param range        numeric rows: the interval values must lie in, or null
 * @param choices      text rows: the values accepted, or null
 * @param specials     values accepted besides the type and range, with what each means ({@code -1} → unlimited,
 *                     {@code auto} → sized from the engines); matched without regard to case
 * @param pattern      text rows: a regular expression values must match, or null
 * @param checkedBy    who checks the value beyond its type when the row does not (policy options: the policy's
 *                     config record), or empty
 * @param section      heading of the documentation section the row is listed under
 * @param description  one sentence for {@code --help} and the docs (meaning and unit)
 */
public record CaravanFlag(String flag, String key, FlagType type, String defaultValue, ValueRange range,
                          Choices choices, Map<String, String> specials, TextPattern pattern, String checkedBy,
                          String section, String description) {

    /** A regular expression a text value must match, and what that means in words (for messages and docs). */
    public record TextPattern(String regex, String meaning) {
        boolean matches(String value) {
            return Pattern.compile(regex).matcher(value).matches();
        }
    }

    public CaravanFlag {
        Objects.requireNonNull(flag, "flag");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(section, "section");
        Objects.requireNonNull(description, "description");
        if (!flag.startsWith("--")) {
            throw new IllegalArgumentException("flag must start with --, was '" + flag + "'");
        }
        if (!key.startsWith("caravan.")) {
            throw new IllegalArgumentException("key must start with caravan., was '" + key + "'");
        }
        defaultValue = defaultValue == null ? "" : defaultValue.trim();
        specials = specials == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(specials));
        checkedBy = checkedBy == null ? "" : checkedBy;
        if (range != null && !type.numeric()) {
            throw new IllegalArgumentException(flag + ": a range needs a numeric type, not " + type);
        }
        if ((choices != null || pattern != null) && type != FlagType.STRING) {
            throw new IllegalArgumentException(flag + ": choices and patterns need type STRING, not " + type);
        }
    }

    /** A row builder; {@link CaravanFlags} declares its rows with one that registers them. */
    public static Builder builder(String flag, String key, FlagType type, String section) {
        return new Builder(flag, key, type, section, f -> { });
    }

    /**
     * The environment variable that sets this property: the key upper-cased with dots and dashes turned into
     * underscores ({@code caravan.policy.cache-threshold} → {@code CARAVAN_POLICY_CACHE_THRESHOLD}).
     */
    public String envVar() {
        return key.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
    }

    /**
     * True when {@code name} (as typed on the command line, without {@code =value}) selects this row. The one place a
     * flag name is matched: an alias ({@code --router-port}) would be one more name accepted here.
     */
    public boolean answersTo(String name) {
        return flag.equals(name);
    }

    /** True when an empty value is an error: the row has a default and a rule (range, choices or pattern). */
    public boolean required() {
        return !defaultValue.isEmpty() && (range != null || choices != null || pattern != null);
    }

    /**
     * Checks a value from any layer (flag, environment, file).
     *
     * @return null when the value is accepted, else one message naming the flag, the property, the rule and the value:
     *         {@code --port (caravan.port) must be an integer in [0, 65535], was '70000'}
     */
    public String check(String value) {
        String v = value == null ? "" : value.trim();
        if (v.isEmpty()) {
            return required() ? label() + " must be set (" + rule() + ")" : null;
        }
        if (special(v) != null) {
            return null;
        }
        boolean ok = type.accepts(v)
                && (range == null || range.contains(decimal(v)))
                && (choices == null || choices.canonical(v) != null)
                && (pattern == null || pattern.matches(v));
        return ok ? null : label() + " must be " + rule() + ", was '" + v + "'";
    }

    /** An accepted value in its stored form: trimmed, with choices and special values in their canonical spelling. */
    public String canonical(String value) {
        String v = value == null ? "" : value.trim();
        String special = special(v);
        if (special != null) {
            return special;
        }
        return choices != null && !v.isEmpty() ? choices.canonical(v) : v;
    }

    /**
     * The accepted values in words, for messages: {@code an integer in [0, 65535]},
     * {@code -1 (unlimited) or an integer >= 1}, {@code one of event-loop, worker}, {@code true or false}; empty for a
     * text row without a rule. Not what {@link #checkedBy} checks.
     */
    public String rule() {
        List<String> parts = new ArrayList<>();
        specials.forEach((value, meaning) -> parts.add(value + " (" + meaning + ")"));
        if (choices != null) {
            parts.add("one of " + choices);
        } else if (pattern != null) {
            parts.add(pattern.meaning());
        } else if (!type.noun().isEmpty()) {
            parts.add(type.noun() + (range == null ? "" : " " + range.phrase()));
        }
        return String.join(" or ", parts);
    }

    /** The accepted values for the docs and {@code --help}: the rule without the type noun the flag column shows. */
    public String values() {
        List<String> parts = new ArrayList<>();
        specials.forEach((value, meaning) -> parts.add(value + " (" + meaning + ")"));
        if (choices != null) {
            parts.add(String.join(" | ", choices.values()));
        } else if (pattern != null) {
            parts.add(pattern.meaning());
        } else if (range != null) {
            parts.add(range.toString());
        }
        String values = String.join(" or ", parts);
        if (!checkedBy.isEmpty()) {
            values += (values.isEmpty() ? "" : "; ") + "checked by " + checkedBy;
        }
        return values;
    }

    private String label() {
        return flag + " (" + key + ")";
    }

    private String special(String v) {
        for (String s : specials.keySet()) {
            if (s.equalsIgnoreCase(v)) {
                return s;
            }
        }
        return null;
    }

    private BigDecimal decimal(String v) {
        return type == FlagType.DOUBLE ? BigDecimal.valueOf(Double.parseDouble(v)) : new BigDecimal(Long.parseLong(v));
    }

    /**
     * Declares a row step by step; {@link #describe} ends the declaration and returns the row.
     *
     * <pre>{@code
     * public static final CaravanFlag QUEUE_SIZE = row("--queue-size", "caravan.admission.queue-size", INT, ADMISSION)
     *         .defaultValue(AdmissionConfig.DEFAULT_QUEUE_SIZE).min(0)
     *         .describe("Requests that may wait (FIFO) for a slot; beyond it 429. 0 = no queue.");
     * }</pre>
     */
    public static final class Builder {
        private final String flag;
        private final String key;
        private final FlagType type;
        private final String section;
        private final Consumer<CaravanFlag> sink;
        private String defaultValue = "";
        private ValueRange range;
        private Choices choices;
        private final Map<String, String> specials = new LinkedHashMap<>();
        private TextPattern pattern;
        private String checkedBy = "";

        Builder(String flag, String key, FlagType type, String section, Consumer<CaravanFlag> sink) {
            this.flag = flag;
            this.key = key;
            this.type = type;
            this.section = section;
            this.sink = sink;
        }

        /** The default, from the named constant of the code that uses the value ({@code String.valueOf}). */
        public Builder defaultValue(Object value) {
            this.defaultValue = value == null ? "" : String.valueOf(value);
            return this;
        }

        /** Whole numbers in {@code [min, max]}. */
        public Builder range(long min, long max) {
            this.range = ValueRange.of(min, max);
            return this;
        }

        /** Numbers in {@code [min, max]}. */
        public Builder range(double min, double max) {
            this.range = ValueRange.of(min, max);
            return this;
        }

        /** Whole numbers {@code >= min}. */
        public Builder min(long min) {
            this.range = ValueRange.atLeast(min);
            return this;
        }

        /** Numbers {@code >= min}. */
        public Builder min(double min) {
            this.range = ValueRange.atLeast(min);
            return this;
        }

        /** The accepted values of a text row. */
        public Builder oneOf(Choices choices) {
            this.choices = choices;
            return this;
        }

        /** The accepted values of a text row. */
        public Builder oneOf(String... values) {
            return oneOf(Choices.of(values));
        }

        /** A value accepted outside the type and range, and what it means ({@code -1}, "unlimited"). */
        public Builder special(String value, String meaning) {
            specials.put(value, meaning);
            return this;
        }

        /** A regular expression a text value must match, and what it means in words. */
        public Builder pattern(String regex, String meaning) {
            this.pattern = new TextPattern(regex, meaning);
            return this;
        }

        /**
         * Leaves the value's range to another owner, named in the docs and messages (policy options: the policy's
         * config record, the library's own validation).
         */
        public Builder checkedBy(String owner) {
            this.checkedBy = owner;
            return this;
        }

        /**
         * Ends the declaration.
         *
         * @throws IllegalArgumentException when the row is malformed or its default breaks its own rule
         */
        public CaravanFlag describe(String description) {
            CaravanFlag f = new CaravanFlag(flag, key, type, defaultValue, range, choices, specials, pattern, checkedBy,
                    section, description);
            String error = f.check(f.defaultValue());
            if (error != null) {
                throw new IllegalArgumentException("default of " + error);
            }
            sink.accept(f);
            return f;
        }
    }
}
