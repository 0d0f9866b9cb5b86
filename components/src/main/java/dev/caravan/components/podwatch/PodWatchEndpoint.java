package dev.caravan.components.podwatch;

import org.apache.camel.Category;
import org.apache.camel.Consumer;
import org.apache.camel.Processor;
import org.apache.camel.Producer;
import org.apache.camel.spi.UriEndpoint;
import org.apache.camel.spi.UriParam;
import org.apache.camel.support.DefaultEndpoint;

/** A pod watch with its options; only a factory for {@link PodWatchConsumer} (there is no producer). */
@UriEndpoint(firstVersion = "0.1.0", scheme = "pod-watch", title = "Kubernetes pod watch", syntax = "pod-watch:name",
        consumerOnly = true, category = {Category.CONTAINER, Category.CLOUD}, headersClass = PodWatchConstants.class)
public class PodWatchEndpoint extends DefaultEndpoint {

    @UriParam
    private final PodWatchConfiguration configuration;

    public PodWatchEndpoint(String uri, PodWatchComponent component, PodWatchConfiguration configuration) {
        super(uri, component);
        this.configuration = configuration;
    }

    public PodWatchConfiguration getConfiguration() {
        return configuration;
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
