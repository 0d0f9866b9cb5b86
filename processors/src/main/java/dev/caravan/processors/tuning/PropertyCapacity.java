package dev.caravan.processors.tuning;

import java.util.AbstractMap;
import java.util.Map;
import java.util.Set;

import org.apache.camel.Exchange;

/**
 * Sizes a new request exchange's property map for the properties a request sets, through Camel's public
 * {@code ExchangeExtension.setProperties(Map)}.
 *
 * <p>Why: Camel 4.18 creates an exchange's property map on first use as {@code new ConcurrentHashMap<>(8)}, a table of
 * 16 that is resized at 12 entries and again at 24; a request sets about 27, so every request copied its properties
 * into a new table twice ({@code ConcurrentHashMap.transfer}, 2.2 to 4.6 % of the event loops' samples; docs/design/
 * camel-tuning.md). Camel has no setting for the size and no public way to give an exchange a map of one's own.
 *
 * <p>How: {@code setProperties} puts the given map's entries into the exchange's {@code ConcurrentHashMap} with
 * {@code putAll}, which first sizes the table for the given map's {@code size()}. This map reports a size and holds no
 * entry, so the exchange's map is sized for {@link #HINT} entries and stays empty. If Camel's map or the JDK's
 * {@code putAll} worked otherwise, the exchange would get an empty map of Camel's default size: nothing breaks, the
 * saving is gone. Only ever handed to {@code setProperties}: it is not a map to use otherwise (its size and its
 * entries disagree on purpose).
 */
final class PropertyCapacity extends AbstractMap<String, Object> {

    /** Entries a request's property map is sized for: a table of 64, resized only past 48. */
    static final int HINT = 32;

    private static final PropertyCapacity REQUEST = new PropertyCapacity();

    private PropertyCapacity() {
    }

    /** Sizes {@code exchange}'s property map for a request; call before any property is set (it clears the map). */
    static void size(Exchange exchange) {
        exchange.getExchangeExtension().setProperties(REQUEST);
    }

    @Override
    public int size() {
        return HINT;
    }

    @Override
    public Set<Map.Entry<String, Object>> entrySet() {
        return Set.of();
    }
}
