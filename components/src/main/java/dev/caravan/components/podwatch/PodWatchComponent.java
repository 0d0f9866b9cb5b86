package dev.caravan.components.podwatch;

import java.util.Map;

import org.apache.camel.Endpoint;
import org.apache.camel.spi.Metadata;
import org.apache.camel.spi.annotations.Component;
import org.apache.camel.support.DefaultComponent;

/**
 * The {@code pod-watch:} component: a Kubernetes pod list+watch loop as a Camel consumer, which re-lists and re-watches
 * after watch expiry (410 Gone), errors and disconnects and resyncs periodically — what camel-kubernetes'
 * {@code kubernetes-pods} consumer does not do. Consumer only.
 *
 * <p>URI syntax: {@code pod-watch:name[?options]}, e.g.
 * {@code pod-watch:workers?namespace=llm&resyncInterval=120s&kubernetesClient=#kubernetesClient}. Options are declared
 * once in {@link PodWatchConfiguration}; the build generates from it the catalog JSON
 * ({@code META-INF/dev/caravan/components/podwatch/pod-watch.json}), the option table of
 * {@code components/src/main/docs/pod-watch-component.adoc} and the configurers that bind options without reflection
 * (an option the catalog does not list fails endpoint creation).
 */
@Component("pod-watch")
public class PodWatchComponent extends DefaultComponent {

    static final String SYNTAX_HINT = "expected pod-watch:name, e.g. pod-watch:workers?namespace=llm";

    @Metadata(label = "advanced", description = "Component-wide defaults every endpoint starts from (each endpoint gets its"
            + " own copy).")
    private PodWatchConfiguration configuration = new PodWatchConfiguration();

    @Override
    protected Endpoint createEndpoint(String uri, String remaining, Map<String, Object> parameters) throws Exception {
        if (remaining == null || remaining.isBlank()) {
            throw new IllegalArgumentException("Invalid pod-watch URI '" + uri + "': " + SYNTAX_HINT);
        }
        PodWatchConfiguration config = configuration.copy();
        config.setName(remaining);
        PodWatchEndpoint endpoint = new PodWatchEndpoint(uri, this, config);
        // Binds through PodWatchEndpoint#configureProperties (generated configurer only); Camel rejects what is left over.
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
