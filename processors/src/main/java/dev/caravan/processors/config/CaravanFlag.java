package dev.caravan.processors.config;

import java.util.Locale;
import java.util.Objects;

/**
 * One row of the configuration table ({@link CaravanFlags}): a command-line flag, the {@code caravan.*} property it
 * binds to, its default, and what it means. The same row drives argument parsing, environment-variable lookup,
 * validation and the generated table in {@code docs/configuration.md}.
 *
 * @param flag         the SGLang-compatible flag, e.g. {@code --cache-threshold}
 * @param key          the property key, e.g. {@code caravan.policy.cache-threshold}
 * @param defaultValue the default as a property string; empty means "unset"
 * @param type         arity and validation
 * @param section      heading of the documentation section the row is listed under
 * @param description  one sentence for {@code --help} and the docs (meaning and unit)
 */
public record CaravanFlag(String flag, String key, String defaultValue, FlagType type, String section,
                          String description) {

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
        defaultValue = defaultValue == null ? "" : defaultValue;
        String error = type.validate(key, defaultValue);
        if (error != null) {
            throw new IllegalArgumentException("default of " + flag + ": " + error);
        }
    }

    /**
     * The environment variable that sets this property: the key upper-cased with dots and dashes turned into
     * underscores ({@code caravan.policy.cache-threshold} → {@code CARAVAN_POLICY_CACHE_THRESHOLD}).
     */
    public String envVar() {
        return key.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
    }
}
