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
 * @param aliases      other names of the flag ({@code --eviction-interval-secs}, the Python launcher's name of
 *                     {@code --eviction-interval}); every name is also accepted with SGLang's {@code --router-} prefix
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
 * @param support      what Caravan does with the flag: implemented, different, accepted and ignored, refused
 * @param secret       the value is a credential: masked wherever the configuration is shown
 * @param sglang       where Caravan's default departs from SGLang's (or from SGLang's behaviour, for a Caravan-only
 *                     row): SGLang's value and why Caravan's differs; {@code --sglang-defaults} applies it. Null when
 *                     the default is SGLang's
 * @param section      heading of the documentation section the row is listed under
 * @param description  one sentence for {@code --help} and the docs (meaning and unit)
 */
public record CaravanFlag(String flag, List<String> aliases, String key, FlagType type, String defaultValue,
                          ValueRange range, Choices choices, Map<String, String> specials, TextPattern pattern,
                          String checkedBy, FlagSupport support, boolean secret, SglangDefault sglang,
                          String section, String description) {

    /** The prefix SGLang's {@code launch_server} puts before every router flag; accepted on every name. */
    public static final String ROUTER_PREFIX = "--router-";

    /**
     * SGLang's default for a row whose Caravan default differs, and why it differs.
     *
     * @param value SGLang's value as a property string, or a reference {@code {{caravan.key}}} to another row's value
     *              (SGLang derives some defaults from other settings)
     * @param why   one sentence for the docs: what Caravan's default wins, measured where it is a routing choice
     */
    public record SglangDefault(String value, String why) {
        public SglangDefault {
            Objects.requireNonNull(value, "value");
            Objects.requireNonNull(why, "why");
            if (why.isBlank()) {
                throw new IllegalArgumentException("a default that differs from SGLang's needs a reason");
            }
        }

        /** The row whose value this default copies, or null for a literal value. */
        public String reference() {
            return value.startsWith("{{") && value.endsWith("}}") ? value.substring(2, value.length() - 2) : null;
        }
    }

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
        aliases = aliases == null ? List.of() : List.copyOf(aliases);
        for (String alias : aliases) {
            if (!alias.startsWith("--")) {
                throw new IllegalArgumentException(flag + ": alias must start with --, was '" + alias + "'");
            }
        }
        support = support == null ? FlagSupport.IMPLEMENTED : support;
        defaultValue = defaultValue == null ? "" : defaultValue.trim();
        specials = specials == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(specials));
        checkedBy = checkedBy == null ? "" : checkedBy;
        if (range != null && !type.numeric()) {
            throw new IllegalArgumentException(flag + ": a range needs a numeric type, not " + type);
        }
        if (choices != null && type != FlagType.STRING) {
            throw new IllegalArgumentException(flag + ": choices and patterns need type STRING, not " + type);
        }
        if (pattern != null && type != FlagType.STRING && type != FlagType.LIST) {
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
     * True when {@code name} (as typed on the command line, without {@code =value}) selects this row: the flag, one of
     * its aliases, or either with SGLang's {@code --router-} prefix ({@code --router-policy}). The one place a flag
     * name is matched.
     */
    public boolean answersTo(String name) {
        if (flag.equals(name) || aliases.contains(name)) {
            return true;
        }
        if (name.startsWith(ROUTER_PREFIX)) {
            String bare = "--" + name.substring(ROUTER_PREFIX.length());
            return flag.equals(bare) || aliases.contains(bare);
        }
        return false;
    }

    /** Every name of the flag: the flag, then its aliases. */
    public List<String> names() {
        List<String> names = new ArrayList<>(1 + aliases.size());
        names.add(flag);
        names.addAll(aliases);
        return names;
    }

    /**
     * Why an accepted value stops start-up, or null: a {@link FlagSupport.Status#REFUSED} row set to anything but its
     * default, or a value the row refuses ({@code --backend openai}). Names the flag and says why:
     * {@code --jwt-issuer is not supported by Caravan: ...}.
     */
    public String refusal(String value) {
        String v = canonical(value);
        if (support.status() == FlagSupport.Status.REFUSED && !isDefault(v)) {
            return flag + " is not supported by Caravan: " + support.note();
        }
        if (!v.isEmpty() && support.refusedValues().contains(v)) {
            return flag + " " + v + " is not supported by Caravan: " + support.refusedReason();
        }
        return null;
    }

    /**
     * The one-line start-up warning for an accepted value, or null: an {@link FlagSupport.Status#IGNORED} row set to
     * anything but its default. Names the flag, never the value (it may be a password).
     */
    public String warning(String value) {
        if (support.status() == FlagSupport.Status.IGNORED && !isDefault(canonical(value))) {
            return flag + " is accepted for SGLang compatibility and ignored: " + support.note();
        }
        return null;
    }

    /** True when a canonical value equals the default (numerically for numbers: {@code 60} and {@code 60.0}). */
    private boolean isDefault(String v) {
        if (v.equals(defaultValue)) {
            return true;
        }
        if (type.numeric() && !v.isEmpty() && !defaultValue.isEmpty() && type.accepts(v)
                && type.accepts(defaultValue)) {
            return new BigDecimal(v).compareTo(new BigDecimal(defaultValue)) == 0;
        }
        return (type == FlagType.SWITCH || type == FlagType.BOOLEAN)
                && v.equalsIgnoreCase(defaultValue.isEmpty() ? "false" : defaultValue);
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
                && (pattern == null || matchesPattern(v));
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

    /** A text value matches the pattern; a list value, each of its elements. */
    private boolean matchesPattern(String v) {
        if (type != FlagType.LIST) {
            return pattern.matches(v);
        }
        for (String element : v.split(",")) {
            if (!pattern.matches(element.trim())) {
                return false;
            }
        }
        return true;
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
        private final List<String> aliases = new ArrayList<>();
        private FlagSupport support = FlagSupport.IMPLEMENTED;
        private boolean secret;
        private SglangDefault sglang;

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
         * Other names of the flag, accepted like it: SGLang's Python launcher and Rust binary name some settings
         * differently ({@code --eviction-interval-secs} / {@code --eviction-interval}).
         */
        public Builder alias(String... names) {
            aliases.addAll(List.of(names));
            return this;
        }

        /** The value is a credential (an API key, a password): masked wherever the configuration is shown. */
        public Builder secret() {
            this.secret = true;
            return this;
        }

        /**
         * Caravan's default departs from SGLang's {@code value} (or, for a Caravan-only row, from SGLang's behaviour)
         * for the reason {@code why}; {@code --sglang-defaults} restores {@code value}.
         */
        public Builder sglangDefault(Object value, String why) {
            this.sglang = new SglangDefault(String.valueOf(value), why);
            return this;
        }

        /** Implemented with a difference from SGLang, which {@code how} explains (docs). */
        public Builder differs(String how) {
            this.support = support.as(FlagSupport.Status.DIFFERENT, how);
            return this;
        }

        /**
         * Accepted without effect: a value other than the default logs one start-up warning naming the flag and
         * {@code why}.
         */
        public Builder ignored(String why) {
            this.support = support.as(FlagSupport.Status.IGNORED, why);
            return this;
        }

        /** Not implemented: a value other than the default stops start-up, naming the flag and {@code why}. */
        public Builder refused(String why) {
            this.support = support.as(FlagSupport.Status.REFUSED, why);
            return this;
        }

        /** These values (canonical spelling) stop start-up, naming the flag, the value and {@code why}. */
        public Builder refusing(String why, String... values) {
            this.support = support.refusing(why, java.util.Set.of(values));
            return this;
        }

        /**
         * Ends the declaration.
         *
         * @throws IllegalArgumentException when the row is malformed or its default breaks its own rule
         */
        public CaravanFlag describe(String description) {
            CaravanFlag f = new CaravanFlag(flag, aliases, key, type, defaultValue, range, choices, specials, pattern,
                    checkedBy, support, secret, sglang, section, description);
            String error = f.check(f.defaultValue());
            if (error != null) {
                throw new IllegalArgumentException("default of " + error);
            }
            if (sglang != null && sglang.reference() == null && f.check(sglang.value()) != null) {
                throw new IllegalArgumentException("SGLang default of " + f.check(sglang.value()));
            }
            sink.accept(f);
            return f;
        }
    }
}
