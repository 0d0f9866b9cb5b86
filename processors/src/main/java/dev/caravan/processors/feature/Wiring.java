package dev.caravan.processors.feature;

import java.util.function.UnaryOperator;

import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Vertx;

import dev.caravan.policies.WorkerRegistry;
import dev.caravan.processors.config.GatewayConfig;

/**
 * What a feature is wired with: the configuration, the objects every feature shares (built by the assembler before any
 * feature), and the beans of the features wired before it. Beans are bound under a name for the routes
 * ({@link #bind}); objects features hand each other but no route references are shared by type ({@link #share}).
 *
 * <pre>{@code
 * public void wire(Wiring w) {                      // ControlFeature's, shortened
 *     PolicyPools pools = w.shared(PolicyPools.class);  // shared by RoutingFeature, filled by the features after it
 *     w.bind(RUN_MAINTENANCE, new RunMaintenanceProcessor(pools.maintained(), System::nanoTime));
 *     w.property("caravan.derived.control-timeout-ms", Long.toString(timeoutSecs * 1000));
 * }
 * }</pre>
 */
public interface Wiring {

    /** The Micrometer registry; camel-micrometer(-prometheus) looks it up by this name. */
    String METRICS_REGISTRY = "metricsRegistry";
    String GATEWAY_CONFIG = "gatewayConfig";
    String WORKER_REGISTRY = "workerRegistry";
    /** The regular pool's per-model policies ({@code PolicyRegistry}), bound before any feature wires. */
    String POLICY_REGISTRY = "policyRegistry";
    /** The prefill and decode pools' policies, bound by the P/D feature. */
    String PREFILL_POLICY_REGISTRY = "prefillPolicyRegistry";
    String DECODE_POLICY_REGISTRY = "decodePolicyRegistry";
    /** The request meters of the gateway's server and its worker selection ({@code GatewayMetrics}). */
    String GATEWAY_METRICS = "gatewayMetrics";

    GatewayConfig config();

    /** The gateway's Vert.x instance (its server's, its clients' and its timers'). */
    Vertx vertx();

    WorkerRegistry workers();

    MeterRegistry meters();

    /**
     * True when the gateway routes prefill/decode pairs ({@code --pd-disaggregation}, or an optional module that
     * discovers a P/D fleet).
     */
    boolean prefillDecode();

    /**
     * Binds a bean under the name the routes use.
     *
     * @throws IllegalStateException when the name is taken
     */
    void bind(String name, Object bean);

    /**
     * A bean bound before.
     *
     * @throws IllegalStateException when none is bound under {@code name} or it is not a {@code type}
     */
    <T> T get(String name, Class<T> type);

    /** Replaces a bound bean by a wrapper around it (tracing spans around a step); nothing when it is not bound. */
    <T> void wrap(String name, Class<T> type, UnaryOperator<T> wrapper);

    /**
     * Hands an object to the features wired later, by its type.
     *
     * @throws IllegalStateException when an object of that type is already shared
     */
    <T> void share(Class<T> type, T object);

    /**
     * An object shared before.
     *
     * @throws IllegalStateException when none of that type is shared
     */
    <T> T shared(Class<T> type);

    /** A value route placeholders read ({@code {{caravan.derived.*}}}). */
    void property(String key, String value);
}
