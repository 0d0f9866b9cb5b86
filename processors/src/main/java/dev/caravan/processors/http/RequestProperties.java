package dev.caravan.processors.http;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Map;

import org.apache.camel.Exchange;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.caravan.processors.PropertyMap;

/**
 * Gives a new request exchange a {@link PropertyMap}: a slot for each of the steps' own properties.
 *
 * <p>Why: Camel 4.18 creates an exchange's property map on first use as {@code new ConcurrentHashMap<>(8)}, a table of
 * 16 that is resized when it holds 12 entries and again at 24; a regular request sets about 27 (the steps' own,
 * {@link dev.caravan.processors.CaravanExchangeProperties}), so every request copied its properties into a new table
 * twice ({@code ConcurrentHashMap.transfer}, about 2 % of the event loops' samples), and each of its hundred or so
 * reads and writes hashed a name into a shared table (docs/design/request-path.md, "Per-request cost"). Camel has no
 * setting for it and only its own subclasses may set the map, so it is set through
 * a method handle on the {@code properties} field of Camel's package-private {@code AbstractExchange}, before anything
 * else touches the exchange's properties. Should a later Camel not have that field, exchanges keep Camel's own map
 * (logged once at start).
 */
final class RequestProperties {

    private static final Logger LOG = LoggerFactory.getLogger(RequestProperties.class);
    private static final Class<?> OWNER;
    private static final MethodHandle GET;
    private static final MethodHandle SET;

    static {
        Class<?> owner = null;
        MethodHandle get = null;
        MethodHandle set = null;
        try {
            owner = Class.forName("org.apache.camel.support.AbstractExchange");
            MethodHandles.Lookup lookup = MethodHandles.privateLookupIn(owner, MethodHandles.lookup());
            get = lookup.findGetter(owner, "properties", Map.class)
                    .asType(MethodType.methodType(Map.class, Exchange.class));
            set = lookup.findSetter(owner, "properties", Map.class)
                    .asType(MethodType.methodType(void.class, Exchange.class, Map.class));
        } catch (ReflectiveOperationException | RuntimeException e) {
            LOG.info("Exchanges keep Camel's own property map ({}: {})", e.getClass().getSimpleName(), e.getMessage());
            owner = null;
        }
        OWNER = owner;
        GET = get;
        SET = set;
    }

    private RequestProperties() {
    }

    /** Whether {@link #installPropertyMap} can replace Camel's map on this JVM and Camel version. */
    static boolean available() {
        return OWNER != null;
    }

    /** Gives {@code exchange} a {@link PropertyMap} if it has no property map yet; otherwise leaves it as it is. */
    static void installPropertyMap(Exchange exchange) {
        install(exchange, null);
    }

    /**
     * Makes {@code map} (a new {@link PropertyMap} when null) the exchange's property map if it has none yet; returns
     * whether it did.
     */
    static boolean install(Exchange exchange, Map<String, Object> map) {
        if (OWNER == null || !OWNER.isInstance(exchange)) {
            return false;
        }
        try {
            if ((Map<?, ?>) GET.invokeExact(exchange) != null) {
                return false;
            }
            Map<String, Object> properties = map != null ? map : new PropertyMap();
            SET.invokeExact(exchange, properties);
            return true;
        } catch (Throwable e) {
            throw new IllegalStateException("could not set the exchange's property map", e);
        }
    }
}
