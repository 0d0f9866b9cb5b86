package dev.caravan.processors.routing;

import java.util.AbstractMap;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The request's headers as the {@code Map<String, String>} a {@code SelectionContext} takes, without copying them:
 * {@link #get} looks the name up in Camel's case-insensitive header map and answers only text values. Policies read a
 * header or two ({@code x-smg-routing-key}, {@code authorization}, ...) per request, so copying and lower-casing every
 * header up front was wasted work. Iteration (rare) materialises a lower-cased copy. Read-only; not thread-safe beyond
 * the exchange's own.
 */
final class HeaderView extends AbstractMap<String, String> {

    private final Map<String, Object> camelHeaders;

    HeaderView(Map<String, Object> camelHeaders) {
        this.camelHeaders = camelHeaders;
    }

    @Override
    public String get(Object key) {
        Object v = camelHeaders.get(key);
        return v instanceof String s ? s : null;
    }

    @Override
    public boolean containsKey(Object key) {
        return get(key) != null;
    }

    @Override
    public Set<Entry<String, String>> entrySet() {
        Map<String, String> copy = new HashMap<>();
        camelHeaders.forEach((k, v) -> {
            if (v instanceof String s && !k.startsWith("Camel")) {
                copy.put(k.toLowerCase(Locale.ROOT), s);
            }
        });
        return copy.entrySet();
    }
}
