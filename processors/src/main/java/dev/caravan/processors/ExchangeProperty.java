package dev.caravan.processors;

import java.util.Objects;

import org.apache.camel.Exchange;

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
 * Reads go through Camel's {@code getProperty(name, type)}, so a value a route set as text converts as before (a
 * {@code setProperty} with {@code constant: true} reads as a Boolean). Immutable and thread-safe.
 *
 * @param <T> the type of the value
 */
public final class ExchangeProperty<T> {

    private final String name;
    private final Class<T> type;

    private ExchangeProperty(String name, Class<T> type) {
        this.name = Objects.requireNonNull(name, "name");
        this.type = Objects.requireNonNull(type, "type");
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
    public T get(Exchange exchange) {
        return exchange.getProperty(name, type);
    }

    /** The value, or {@code fallback} when absent. */
    public T get(Exchange exchange, T fallback) {
        T value = get(exchange);
        return value != null ? value : fallback;
    }

    public void set(Exchange exchange, T value) {
        exchange.setProperty(name, value);
    }

    public void remove(Exchange exchange) {
        exchange.removeProperty(name);
    }

    @Override
    public String toString() {
        return name;
    }
}
