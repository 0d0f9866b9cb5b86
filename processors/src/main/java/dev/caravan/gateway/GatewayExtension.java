package dev.caravan.gateway;

import java.util.Map;

import io.micrometer.core.instrument.MeterRegistry;

import dev.caravan.policies.PolicyEnvironment;
import dev.caravan.policies.WorkerRegistry;
import dev.caravan.processors.config.GatewayConfig;

/**
 * An optional part of the gateway that lives in its own module and joins the object graph when its jar is on the class
 * path: found with {@link java.util.ServiceLoader} ({@code META-INF/services/dev.caravan.gateway.GatewayExtension}).
 * Kubernetes service discovery ({@code dev.caravan:caravan-kubernetes}) is one, so an application that embeds the
 * gateway without it carries no Kubernetes client.
 *
 * <p>An extension is asked for its beans only when {@link #enabled} says the configuration uses it; its routes
 * ({@link #routesFile}, in the routes module with the others) are loaded only then. A configuration that enables a
 * feature whose extension is missing fails at start with a message naming the artifact ({@link Extensions}).
 */
public interface GatewayExtension {

    /** The feature's name in messages, e.g. {@code Kubernetes service discovery}. */
    String name();

    /** The Maven coordinates that provide it, for the message when it is missing. */
    String artifact();

    /** True when the configuration turns the feature on. */
    boolean enabled(GatewayConfig config);

    /** The extension's route file name under {@code routes/}, loaded only when enabled. */
    String routesFile();

    /**
     * Adds the beans its routes reference.
     *
     * @throws IllegalArgumentException naming the setting, for an invalid configuration
     */
    void define(GatewayConfig config, WorkerRegistry workers, MeterRegistry meters, Map<String, Object> beans);

    /**
     * The environment the gateway's policies are built with, given the gateway's own; called once, before
     * {@link #define} and before any policy exists (the registry is still empty). Replica sync adds the fleet's shared
     * state here ({@link PolicyEnvironment#withFleet}).
     *
     * @throws IllegalArgumentException naming the setting, for an invalid configuration
     */
    default PolicyEnvironment policyEnvironment(GatewayConfig config, WorkerRegistry workers, MeterRegistry meters,
            PolicyEnvironment env) {
        return env;
    }

    /**
     * True when every replica must present a model's workers to its policy in one order, sorted by URL, instead of its
     * own registration order (replica sync: target indexes and tie-breaks then agree across replicas).
     */
    default boolean canonicalWorkerOrder() {
        return false;
    }

    /** Releases what the extension holds; called once after the Camel context has stopped. */
    default void close() {
    }
}
