package dev.caravan.components.support;

import java.util.Map;

import org.apache.camel.spi.PropertyConfigurer;
import org.apache.camel.support.DefaultEndpoint;
import org.apache.camel.support.PropertyBindingSupport;

/**
 * Binds endpoint options through the component's generated {@code *EndpointConfigurer} and nothing else.
 *
 * <p>Camel's default binding tries the configurer first and falls back to reflection for any option the configurer does
 * not know, so a public setter that is not a documented option (e.g. {@code DefaultEndpoint#setPollingConsumerQueueSize})
 * would still be bound from a URI. With reflection off, the options a URI may carry are exactly those in the catalog
 * JSON; anything else stays in the parameter map, and Camel fails endpoint creation listing it as unknown.
 *
 * <p>Endpoints call this from {@link DefaultEndpoint#configureProperties(Map)}, the one hook both the component's own
 * binding and Camel's second pass over leftover parameters go through.
 */
public final class GeneratedOptionBinding {

    private GeneratedOptionBinding() {
    }

    /**
     * Binds (and removes) every option the generated configurer knows; leaves the rest in {@code options}.
     *
     * @throws IllegalStateException when the component has no generated configurer, i.e. the jar was built without
     *                               camel-component-maven-plugin's output (every option would otherwise be reported
     *                               as unknown, hiding the cause)
     */
    public static void bind(DefaultEndpoint endpoint, Map<String, Object> options) {
        if (options == null || options.isEmpty()) {
            return;
        }
        PropertyConfigurer configurer = endpoint.getComponent().getEndpointPropertyConfigurer();
        if (configurer == null) {
            throw new IllegalStateException("No generated endpoint configurer for " + endpoint.getClass().getSimpleName()
                    + " (META-INF/services/org/apache/camel/configurer/*-endpoint missing): the components jar was"
                    + " built without camel-component-maven-plugin");
        }
        PropertyBindingSupport.build()
                .withConfigurer(configurer)
                .withReflection(false)
                .withIgnoreCase(true)
                .withRemoveParameters(true)
                .bind(endpoint.getCamelContext(), endpoint, options);
    }
}
