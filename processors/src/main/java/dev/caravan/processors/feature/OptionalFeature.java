package dev.caravan.processors.feature;

import dev.caravan.processors.config.GatewayConfig;

/**
 * A feature that lives in its own module and joins the gateway when its jar is on the class path: found with
 * {@link java.util.ServiceLoader} ({@code META-INF/services/dev.caravan.processors.feature.OptionalFeature}).
 * Kubernetes service discovery ({@code dev.caravan:caravan-kubernetes}) and replica sync ({@code caravan-sync}) are
 * such features, so an application that embeds the gateway without them carries no Kubernetes client and no Hazelcast.
 *
 * <p>Its flag rows join the table whenever the module is on the class path. It is wired only when {@link #enabled}
 * says the configuration uses it, after the built-in features; its routes ({@link #routesFile}, in the routes module
 * with the others) are loaded only then. The switch that turns it on is a row of the core table
 * ({@code CoreFlags.SERVICE_DISCOVERY}, {@code CoreFlags.SYNC_MODE}), not of the module, so that a configuration
 * turning it on without the module fails at start with a message naming the artifact rather than "unknown flag"
 * ({@code dev.caravan.gateway.Extensions}).
 */
public interface OptionalFeature extends Feature {

    /** The feature's name in messages, e.g. {@code Kubernetes service discovery}. */
    String name();

    /** The Maven coordinates that provide it, for the message when it is missing. */
    String artifact();

    /** True when the configuration turns the feature on. */
    boolean enabled(GatewayConfig config);

    /** The feature's route file name under {@code routes/}, loaded only when enabled. */
    String routesFile();

    /**
     * True when every replica must present a model's workers to its policy in one order, sorted by URL, instead of its
     * own registration order (replica sync: target indexes and tie-breaks then agree across replicas).
     */
    default boolean canonicalWorkerOrder() {
        return false;
    }

    /** True when the feature, enabled, registers prefill and decode workers (readiness then needs both roles). */
    default boolean discoversPrefillDecode(GatewayConfig config) {
        return false;
    }
}
