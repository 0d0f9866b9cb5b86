package dev.caravan.gateway;

import java.util.Map;

import io.micrometer.core.instrument.MeterRegistry;

import dev.caravan.policies.WorkerRegistry;
import dev.caravan.processors.config.GatewayConfig;

/**
 * An optional part of the gateway that lives in its own module and joins the object graph when its jar is on the class
 * path: found with {@link java.util.ServiceLoader} ({@code META-INF/services/dev.caravan.gateway.GatewayExtension}).
 * Kubernetes service discovery ({@code dev.caravan:caravan-kubernetes}) is one, so an application that embeds the
 * gateway without it carries no Kubernetes client.
 *
 * <p>An extension is asked for its beans only when {@link #enabled} says the configuration uses it; its routes
 * ({@link #routesFile}, on its own jar's {@code routes/} path) are loaded only then. A configuration that enables a
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
}
