package dev.caravan.processors.feature;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.UnaryOperator;

import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Vertx;

import dev.caravan.policies.WorkerRegistry;
import dev.caravan.processors.config.GatewayConfig;

/**
 * A {@link Wiring} over plain maps: the gateway's assembler wires its features with one, and a test wires a single
 * feature with one to look at the beans it binds. Not thread-safe; wiring happens on one thread before the Camel
 * context starts.
 */
public final class MapWiring implements Wiring {

    private final GatewayConfig config;
    private final Vertx vertx;
    private final WorkerRegistry workers;
    private final MeterRegistry meters;
    private final boolean prefillDecode;
    private final Map<String, Object> beans = new LinkedHashMap<>();
    private final Map<Class<?>, Object> shared = new LinkedHashMap<>();
    private final Map<String, String> properties = new LinkedHashMap<>();
    /** The feature whose {@code wire} bound each bean ({@link #wire}). */
    private final Map<String, Class<? extends Feature>> binders = new LinkedHashMap<>();
    /** The feature {@link #wire} is wiring, or null. */
    private Feature wiring;

    /**
     * @param vertx may be null for a feature that builds no client or timer (a test's)
     */
    public MapWiring(GatewayConfig config, Vertx vertx, WorkerRegistry workers, MeterRegistry meters,
                     boolean prefillDecode) {
        this.config = config;
        this.vertx = vertx;
        this.workers = workers;
        this.meters = meters;
        this.prefillDecode = prefillDecode;
    }

    @Override
    public GatewayConfig config() {
        return config;
    }

    @Override
    public Vertx vertx() {
        return vertx;
    }

    @Override
    public WorkerRegistry workers() {
        return workers;
    }

    @Override
    public MeterRegistry meters() {
        return meters;
    }

    @Override
    public boolean prefillDecode() {
        return prefillDecode;
    }

    /** Runs a feature's {@code wire} on this wiring, remembering it as the binder of the beans it binds. */
    public void wire(Feature feature) {
        wiring = feature;
        try {
            feature.wire(this);
        } finally {
            wiring = null;
        }
    }

    @Override
    public void bind(String name, Object bean) {
        if (beans.putIfAbsent(name, bean) != null) {
            throw new IllegalStateException("bean " + name + " is bound twice");
        }
        if (wiring != null) {
            binders.put(name, wiring.getClass());
        }
    }

    @Override
    public <T> T get(String name, Class<T> type) {
        Object bean = beans.get(name);
        if (!type.isInstance(bean)) {
            throw new IllegalStateException("no " + type.getSimpleName() + " bound as " + name
                    + (bean == null ? "" : " (a " + bean.getClass().getSimpleName() + " is)"));
        }
        return type.cast(bean);
    }

    @Override
    public <T> void wrap(String name, Class<T> type, UnaryOperator<T> wrapper) {
        Object bean = beans.get(name);
        if (type.isInstance(bean)) {
            beans.put(name, wrapper.apply(type.cast(bean)));
        }
    }

    @Override
    public <T> void share(Class<T> type, T object) {
        if (shared.putIfAbsent(type, object) != null) {
            throw new IllegalStateException("a " + type.getSimpleName() + " is shared twice");
        }
    }

    @Override
    public <T> T shared(Class<T> type) {
        Object object = shared.get(type);
        if (object == null) {
            throw new IllegalStateException("no " + type.getSimpleName() + " is shared");
        }
        return type.cast(object);
    }

    @Override
    public void property(String key, String value) {
        properties.put(key, value);
    }

    /** Every bound bean by name, in binding order (live: the assembler hands this map to Camel's registry). */
    public Map<String, Object> beans() {
        return beans;
    }

    /**
     * The class of the feature whose {@code wire} bound a bean (through {@link #wire}), or null when none did: the bean
     * is unbound, or was put into {@link #beans()} directly.
     */
    public Class<? extends Feature> binder(String name) {
        return binders.get(name);
    }

    /** The {@code caravan.derived.*} values the features set. */
    public Map<String, String> properties() {
        return properties;
    }
}
