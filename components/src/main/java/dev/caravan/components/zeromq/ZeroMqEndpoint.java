package dev.caravan.components.zeromq;

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
 * Receive and send ZeroMQ multipart messages with JeroMQ: SUB and DEALER sockets as consumers, a PUB socket as producer
 * (for instance the KV-cache events that vLLM and SGLang engines publish).
 */
@UriEndpoint(firstVersion = "0.1.0", scheme = "zeromq", title = "ZeroMQ", syntax = "zeromq:socketType:address",
        category = {Category.MESSAGING}, headersClass = ZeroMqConstants.class)
public class ZeroMqEndpoint extends DefaultEndpoint {
    // The class javadoc is the component description in the generated catalog, so it is written for users. For
    // developers: the endpoint is only a factory for ZeroMqConsumer / ZeroMqProducer; the URI's socket kind decides which.

    @UriParam
    private final ZeroMqConfiguration configuration;

    public ZeroMqEndpoint(String uri, ZeroMqComponent component, ZeroMqConfiguration configuration) {
        super(uri, component);
        this.configuration = configuration;
    }

    public ZeroMqConfiguration getConfiguration() {
        return configuration;
    }

    /** Binds URI options through the generated {@code ZeroMqEndpointConfigurer} only (see {@link GeneratedOptionBinding}). */
    @Override
    public void configureProperties(Map<String, Object> options) {
        GeneratedOptionBinding.bind(this, options);
    }

    @Override
    public Producer createProducer() {
        if (configuration.socketKind().isConsumer()) {
            throw new IllegalArgumentException("zeromq:" + configuration.socketKind().uriName()
                    + " endpoints can only be consumed (from); use zeromq:pub:<address> to send");
        }
        return new ZeroMqProducer(this);
    }

    @Override
    public Consumer createConsumer(Processor processor) throws Exception {
        if (!configuration.socketKind().isConsumer()) {
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
