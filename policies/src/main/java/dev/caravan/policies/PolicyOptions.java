package dev.caravan.policies;

import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

import dev.caravan.policies.tree.OwnerRule;

/**
 * Typed access to string policy options keyed by SGLang's CLI flag names. Keys are matched after stripping leading
 * dashes, lower-casing and turning {@code _} into {@code -}, so {@code --cache-threshold}, {@code cache_threshold} and
 * {@code cache-threshold} are one key. A missing or blank value means "use the default"; a value that does not parse is an
 * {@link IllegalArgumentException} naming the key and the value.
 */
final class PolicyOptions {

    /** The value of a size option that the gateway calibrates per worker. */
    static final String AUTO = "auto";

    private final Map<String, String> values;

    PolicyOptions(Map<String, String> options) {
        Map<String, String> normalized = new HashMap<>();
        if (options != null) {
            options.forEach((k, v) -> {
                if (k != null && v != null && !v.isBlank()) {
                    normalized.put(normalizeKey(k), v.trim());
                }
            });
        }
        this.values = normalized;
    }

    static String normalizeKey(String key) {
        String k = key.trim().toLowerCase(Locale.ROOT).replace('_', '-');
        while (k.startsWith("-")) {
            k = k.substring(1);
        }
        return k;
    }

    private String raw(String key, String... aliases) {
        String v = values.get(key);
        for (int i = 0; v == null && i < aliases.length; i++) {
            v = values.get(aliases[i]);
        }
        return v;
    }

    double getDouble(String key, double dflt) {
        String v = raw(key);
        if (v == null) {
            return dflt;
        }
        try {
            return Double.parseDouble(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("option " + key + " must be a number, was '" + v + "'");
        }
    }

    long getLong(String key, long dflt) {
        String v = raw(key);
        if (v == null) {
            return dflt;
        }
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("option " + key + " must be a whole number, was '" + v + "'");
        }
    }

    /**
     * A whole number, or {@code auto} meaning "the default here; the gateway sizes it per worker" (cache_aware's
     * {@code max-tree-size auto}: budgets from each engine's reported KV capacity).
     */
    long getLongOrAuto(String key, long dflt) {
        String v = raw(key);
        return v != null && v.equalsIgnoreCase(AUTO) ? dflt : getLong(key, dflt);
    }

    int getInt(String key, int dflt) {
        long v = getLong(key, dflt);
        if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("option " + key + " is out of range, was '" + raw(key) + "'");
        }
        return (int) v;
    }

    boolean getBoolean(String key, boolean dflt) {
        String v = raw(key);
        if (v == null) {
            return dflt;
        }
        if (v.equalsIgnoreCase("true")) {
            return true;
        }
        if (v.equalsIgnoreCase("false")) {
            return false;
        }
        throw new IllegalArgumentException("option " + key + " must be true or false, was '" + v + "'");
    }

    /** Whole seconds, as SGLang's {@code *_secs} flags; also accepts the key with a {@code -secs} suffix. */
    Duration getSeconds(String key, Duration dflt) {
        String v = raw(key, key + "-secs");
        if (v == null) {
            return dflt;
        }
        try {
            return Duration.ofSeconds(Long.parseLong(v));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("option " + key + " must be a whole number of seconds, was '" + v
                    + "'");
        }
    }

    /** {@code first} or {@code latest}, case-insensitively ({@link OwnerRule}). */
    OwnerRule getOwnerRule(String key, OwnerRule dflt) {
        String v = raw(key);
        if (v == null) {
            return dflt;
        }
        try {
            return OwnerRule.fromWireName(v);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("option " + key + " " + e.getMessage());
        }
    }

    /** {@code processed} or {@code footprint}, case-insensitively ({@link MinLoadTieBreak}). */
    MinLoadTieBreak getTieBreak(String key, MinLoadTieBreak dflt) {
        String v = raw(key);
        if (v == null) {
            return dflt;
        }
        try {
            return MinLoadTieBreak.fromWireName(v);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("option " + key + " " + e.getMessage());
        }
    }

    String getString(String key, String dflt) {
        String v = raw(key);
        return v == null ? dflt : v;
    }
}
