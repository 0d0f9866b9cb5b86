package dev.caravan.components.podwatch;

import java.util.Map;

import dev.caravan.components.support.GeneratedOptionBinding;
import org.apache.camel.Category;
import org.apache.camel.Consumer;
import org.apache.camel.Processor;
import org.apache.camel.Producer;
import org.apache.camel.spi.UriEndpoint;
import org.apache.camel.spi.UriParam;
import org.apache.camel.support.DefaultEndpoint;

/**
 * Watch Kubernetes pods: list, then watch from the list's resourceVersion, and list and watch again after watch expiry,
 * errors, disconnects and every resync interval. Each exchange is one pod event or a complete snapshot.
 */
@UriEndpoint(firstVersion = "0.1.0", scheme = "pod-watch", title = "Kubernetes pod watch", syntax = "pod-watch:name",
        consumerOnly = true, category = {Category.CONTAINER, Category.CLOUD}, headersClass = PodWatchConstants.class)
public class PodWatchEndpoint extends DefaultEndpoint {
    // The class javadoc is the component description in the generated catalog, so it is written for users. For
    // developers: the endpoint is only a factory for PodWatchConsumer; there is no producer.

    @UriParam
    private final PodWatchConfiguration configuration;

    public PodWatchEndpoint(String uri, PodWatchComponent component, PodWatchConfiguration configuration) {
        super(uri, component);
        this.configuration = configuration;
    }

    public PodWatchConfiguration getConfiguration() {
        return configuration;
    }

    /** Binds URI options through the generated {@code PodWatchEndpointConfigurer} only (see {@link GeneratedOptionBinding}). */
    @Override
    public void configureProperties(Map<String, Object> options) {
        GeneratedOptionBinding.bind(this, options);
    }

    @Override
    public Producer createProducer() {
        throw new UnsupportedOperationException("pod-watch endpoints can only be consumed (from), not sent to");
    }

    @Override
    public Consumer createConsumer(Processor processor) throws Exception {
        PodWatchConsumer consumer = new PodWatchConsumer(this, processor);
        configureConsumer(consumer);
        return consumer;
    }

    @Override
    public boolean isRemote() {
        return true;
    }
}
