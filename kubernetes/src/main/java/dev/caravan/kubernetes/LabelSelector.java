package dev.caravan.kubernetes;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * An equality-based label selector, as SGLang's {@code --selector app=vllm tier=gpu}: a pod matches when every
 * {@code key=value} pair equals one of its labels. The empty selector matches <em>nothing</em> (not everything), so an
 * unset {@code --prefill-selector} can never sweep every pod of the namespace into the prefill pool.
 *
 * @param pairs the required labels; immutable
 */
public record LabelSelector(Map<String, String> pairs) {

    /** The selector that matches no pod. */
    public static final LabelSelector NONE = new LabelSelector(Map.of());

    public LabelSelector {
        pairs = pairs == null ? Map.of() : Map.copyOf(pairs);
        for (Map.Entry<String, String> e : pairs.entrySet()) {
            if (e.getKey().isBlank()) {
                throw new IllegalArgumentException("selector keys must not be empty, was '=" + e.getValue() + "'");
            }
        }
    }

    /**
     * Parses {@code key=value} items, each item possibly a comma-separated list of pairs (the property form
     * {@code app=vllm,tier=gpu}); blank items are skipped.
     *
     * @throws IllegalArgumentException naming the first item without {@code =} or with an empty key
     */
    public static LabelSelector parse(Collection<String> items) {
        Map<String, String> pairs = new LinkedHashMap<>();
        for (String item : items) {
            for (String part : item.split(",")) {
                String p = part.trim();
                if (p.isEmpty()) {
                    continue;
                }
                int eq = p.indexOf('=');
                if (eq <= 0) {
                    throw new IllegalArgumentException("selector items must look like key=value, was '" + p + "'");
                }
                pairs.put(p.substring(0, eq).trim(), p.substring(eq + 1).trim());
            }
        }
        return new LabelSelector(pairs);
    }

    /** Parses the property form {@code app=vllm,tier=gpu} (or an empty string for no selector). */
    public static LabelSelector parse(String value) {
        return value == null ? NONE : parse(List.of(value));
    }

    public boolean isEmpty() {
        return pairs.isEmpty();
    }

    /** True when the selector is non-empty and every pair is present in {@code labels}. */
    public boolean matches(Map<String, String> labels) {
        if (pairs.isEmpty() || labels == null) {
            return false;
        }
        for (Map.Entry<String, String> e : pairs.entrySet()) {
            if (!e.getValue().equals(labels.get(e.getKey()))) {
                return false;
            }
        }
        return true;
    }

    /** The property form, {@code k=v,k2=v2}, keys sorted so the output is stable. */
    @Override
    public String toString() {
        return pairs.entrySet().stream().sorted(Map.Entry.comparingByKey())
                .map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(","));
    }
}
