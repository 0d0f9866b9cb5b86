package dev.caravan.components.podwatch;

import java.util.Map;

import org.apache.camel.Endpoint;
import org.apache.camel.spi.Metadata;
import org.apache.camel.spi.annotations.Component;
import org.apache.camel.support.DefaultComponent;
import org.apache.camel.support.PropertyBindingSupport;

/**
 * The {@code pod-watch:} component: a Kubernetes pod list+watch loop as a Camel consumer, which re-lists and re-watches
 * after watch expiry (410 Gone), errors and disconnects and resyncs periodically — what camel-kubernetes'
 * {@code kubernetes-pods} consumer does not do. Consumer only.
 *
 * <p>URI syntax: {@code pod-watch:name[?options]}, e.g.
 * {@code pod-watch:workers?namespace=llm&resyncInterval=120s&kubernetesClient=#kubernetesClient}. Options are in
 * {@link PodWatchConfiguration}; option binding is reflection-based (no generated configurer).
 */
@Component("pod-watch")
public class PodWatchComponent extends DefaultComponent {

    static final String SYNTAX_HINT = "expected pod-watch:name, e.g. pod-watch:workers?namespace=llm";

    @Metadata(description = "Component-wide defaults every endpoint starts from (each endpoint gets its own copy).")
    private PodWatchConfiguration configuration = new PodWatchConfiguration();

    @Override
    protected Endpoint createEndpoint(String uri, String remaining, Map<String, Object> parameters) throws Exception {
        if (remaining == null || remaining.isBlank()) {
            throw new IllegalArgumentException("Invalid pod-watch URI '" + uri + "': " + SYNTAX_HINT);
        }
        PodWatchConfiguration config = configuration.copy();
        config.setName(remaining);
        // Options belong to the configuration; bind those first (consumed keys are removed), then let the endpoint take
        // Camel's standard ones (bridgeErrorHandler, exchangePattern...). Camel rejects leftovers.
        PropertyBindingSupport.build().withRemoveParameters(true).bind(getCamelContext(), config, parameters);
        PodWatchEndpoint endpoint = new PodWatchEndpoint(uri, this, config);
        setProperties(endpoint, parameters);
        try {
            config.validate();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("Invalid pod-watch URI '" + uri + "': " + e.getMessage(), e);
        }
        return endpoint;
    }

    public PodWatchConfiguration getConfiguration() {
        return configuration;
    }

    /** Component-wide defaults every endpoint starts from; each endpoint gets its own copy. */
    public void setConfiguration(PodWatchConfiguration configuration) {
        this.configuration = configuration;
    }
}
