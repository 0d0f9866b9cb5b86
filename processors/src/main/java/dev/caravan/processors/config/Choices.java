package dev.caravan.processors.config;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The values a text row accepts ({@code --dispatch event-loop|worker}), matched without regard to case, each possibly
 * with other accepted spellings ({@code --policy roundrobin} for {@code round_robin}). A matching value is stored in its
 * canonical spelling, so the code that reads it compares with one constant.
 *
 * @param values  the canonical spellings, in the order the docs list them
 * @param aliases other accepted spelling (lower case) → canonical spelling
 */
public record Choices(List<String> values, Map<String, String> aliases) {

    public Choices {
        values = List.copyOf(values);
        aliases = Map.copyOf(aliases);
        if (values.isEmpty()) {
            throw new IllegalArgumentException("choices need at least one value");
        }
        for (String canonical : aliases.values()) {
            if (!values.contains(canonical)) {
                throw new IllegalArgumentException("alias target '" + canonical + "' is not one of " + values);
            }
        }
    }

    public static Choices of(String... values) {
        return new Choices(List.of(values), Map.of());
    }

    public static Choices of(List<String> values) {
        return new Choices(values, Map.of());
    }

    /** These choices, also accepting {@code alias} for {@code canonical}. */
    public Choices withAlias(String alias, String canonical) {
        Map<String, String> more = new LinkedHashMap<>(aliases);
        more.put(alias.toLowerCase(Locale.ROOT), canonical);
        return new Choices(values, more);
    }

    /** The canonical spelling of {@code value}, or null when it is not one of the choices. */
    public String canonical(String value) {
        String v = value.trim();
        for (String c : values) {
            if (c.equalsIgnoreCase(v)) {
                return c;
            }
        }
        return aliases.get(v.toLowerCase(Locale.ROOT));
    }

    /** The canonical values as the docs and messages list them: {@code event-loop, worker}. */
    @Override
    public String toString() {
        return String.join(", ", values);
    }
}
