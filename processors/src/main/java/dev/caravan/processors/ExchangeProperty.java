package dev.caravan.processors;

import java.util.Map;
import java.util.Objects;

import org.apache.camel.Exchange;
import org.apache.camel.ExchangePropertyKey;

/**
 * One exchange property with the type of its value: the typed half of the contract between route steps
 * ({@link CaravanExchangeProperties}). The name is what YAML sees ({@code ${exchangeProperty.caravanAttemptPending}},
 * {@code setProperty: {name: caravanRequestKind}}); the type is what a step gets back, so a step reads
 * {@code MODEL.get(exchange)} instead of a name string and a class literal.
 *
 * <pre>{@code
 * public static final ExchangeProperty<Worker> WORKER = ExchangeProperty.of("caravanWorker", Worker.class);
 * Worker w = WORKER.get(exchange);          // null when absent
 * boolean stream = STREAM.get(exchange, false);
 * WORKER.set(exchange, w);
 * }</pre>
 * A value a route set as text converts as Camel's {@code getProperty(name, type)} converts it (a {@code setProperty}
 * with {@code constant: true} reads as a Boolean). Immutable and thread-safe.
 *
 * <p>Every step reads and writes several of these per request, so the access is direct: Camel's
 * {@code getProperty(String)} and {@code setProperty(String, Object)} first look the name up among Camel's own keys
 * (a string switch per call) before the exchange's property map; here that look-up is done once, at construction, and
 * a name that is not Camel's goes straight to the map ({@code exchange.getProperties()}), as Camel's methods do with
 * such a name.
 *
 * @param <T> the type of the value
 */
public final class ExchangeProperty<T> {

    private final String name;
    private final Class<T> type;
    /** Camel's own key of this name ({@code CamelExceptionCaught}, ...), kept apart from the map by Camel; or null. */
    private final ExchangePropertyKey camelKey;

    private ExchangeProperty(String name, Class<T> type) {
        this.name = Objects.requireNonNull(name, "name");
        this.type = Objects.requireNonNull(type, "type");
        this.camelKey = ExchangePropertyKey.asExchangePropertyKey(name);
    }

    public static <T> ExchangeProperty<T> of(String name, Class<T> type) {
        return new ExchangeProperty<>(name, type);
    }

    /**
     * A property whose type has parameters ({@code Map<String, Object>}, {@code Set<Worker>}): values are checked
     * against the raw class only, as Java can check no more at run time.
     */
    @SuppressWarnings("unchecked")
    public static <T> ExchangeProperty<T> ofGeneric(String name, Class<?> rawType) {
        return new ExchangeProperty<>(name, (Class<T>) rawType);
    }

    /** The property's name on the exchange, as routes and the simple language see it. */
    public String name() {
        return name;
    }

    public Class<T> type() {
        return type;
    }

    /** The value, or null when absent (or not convertible to the type). */
    @SuppressWarnings("unchecked")
    public T get(Exchange exchange) {
        if (camelKey == null) {
            Object value = exchange.getProperties().get(name);
            if (value == null || type.isInstance(value)) {
                return (T) value;
            }
        }
        return exchange.getProperty(name, type); // Camel's own key, or a value to convert
    }

    /** The value, or {@code fallback} when absent. */
    public T get(Exchange exchange, T fallback) {
        T value = get(exchange);
        return value != null ? value : fallback;
    }

    /** Sets the value; null removes it (as Camel's {@code setProperty} does). */
    public void set(Exchange exchange, T value) {
        if (camelKey != null) {
            exchange.setProperty(camelKey, value);
            return;
        }
        Map<String, Object> properties = exchange.getProperties();
        if (value != null) {
            properties.put(name, value);
        } else {
            properties.remove(name);
        }
    }

    public void remove(Exchange exchange) {
        if (camelKey != null) {
            exchange.removeProperty(camelKey);
        } else {
            set(exchange, null);
        }
    }

    @Override
    public String toString() {
        return name;
    }
}
