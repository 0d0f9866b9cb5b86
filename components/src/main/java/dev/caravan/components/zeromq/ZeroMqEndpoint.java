package dev.caravan.components.zeromq;

import org.apache.camel.Category;
import org.apache.camel.Consumer;
import org.apache.camel.Processor;
import org.apache.camel.Producer;
import org.apache.camel.spi.UriEndpoint;
import org.apache.camel.spi.UriParam;
import org.apache.camel.support.DefaultEndpoint;

/**
 * A ZeroMQ socket address with its options; only a factory for {@link ZeroMqConsumer} (SUB, DEALER) and
 * {@link ZeroMqProducer} (PUB). The socket kind in the URI decides which of the two an endpoint can create.
 */
@UriEndpoint(firstVersion = "0.1.0", scheme = "zeromq", title = "ZeroMQ", syntax = "zeromq:socketType:address",
        category = {Category.MESSAGING}, headersClass = ZeroMqConstants.class)
public class ZeroMqEndpoint extends DefaultEndpoint {

    @UriParam
    private final ZeroMqConfiguration configuration;

    public ZeroMqEndpoint(String uri, ZeroMqComponent component, ZeroMqConfiguration configuration) {
        super(uri, component);
        this.configuration = configuration;
    }

    public ZeroMqConfiguration getConfiguration() {
        return configuration;
    }

    @Override
    public Producer createProducer() {
        if (configuration.getSocketType().isConsumer()) {
            throw new IllegalArgumentException("zeromq:" + configuration.getSocketType().uriName()
                    + " endpoints can only be consumed (from); use zeromq:pub:<address> to send");
        }
        return new ZeroMqProducer(this);
    }

    @Override
    public Consumer createConsumer(Processor processor) throws Exception {
        if (!configuration.getSocketType().isConsumer()) {
            throw new IllegalArgumentException("zeromq:pub endpoints can only be sent to (to); use zeromq:sub:<address>"
                    + " or zeromq:dealer:<address> to receive");
        }
        ZeroMqConsumer consumer = new ZeroMqConsumer(this, processor);
        configureConsumer(consumer);
        return consumer;
    }

    @Override
    public boolean isRemote() {
        return true;
    }
}
