package dev.caravan.components.zeromq;

import java.util.Map;

import org.apache.camel.Endpoint;
import org.apache.camel.spi.Metadata;
import org.apache.camel.spi.annotations.Component;
import org.apache.camel.support.DefaultComponent;
import org.apache.camel.support.PropertyBindingSupport;

/**
 * The {@code zeromq:} component: ZeroMQ sockets (JeroMQ, pure Java) as Camel endpoints. Apache Camel 4 ships no ZeroMQ
 * component; Caravan needs one to consume engines' KV-cache events.
 *
 * <p>URI syntax: {@code zeromq:socketType:address[?options]}, for example
 * {@code zeromq:sub:tcp://engine-a:5557?topics=kv@}, {@code zeromq:dealer:tcp://engine-a:5558?identity=caravan},
 * {@code zeromq:pub:tcp://*:5557}. Options are listed in {@link ZeroMqConfiguration} and docs/kv-events.md.
 *
 * <p>Option binding is reflection-based (no generated configurer): the endpoint's options are bound onto its own copy of
 * the component-level {@link #getConfiguration() configuration}, and any option left unbound fails endpoint creation as
 * Camel does for every component.
 */
@Component("zeromq")
public class ZeroMqComponent extends DefaultComponent {

    static final String SYNTAX_HINT = "expected zeromq:socketType:address, e.g. zeromq:sub:tcp://engine-a:5557?topics=kv@"
            + " (socketType sub, dealer or pub)";

    @Metadata(description = "Component-wide defaults every endpoint starts from (each endpoint gets its own copy).")
    private ZeroMqConfiguration configuration = new ZeroMqConfiguration();

    @Override
    protected Endpoint createEndpoint(String uri, String remaining, Map<String, Object> parameters) throws Exception {
        int colon = remaining == null ? -1 : remaining.indexOf(':');
        if (colon <= 0 || colon == remaining.length() - 1) {
            throw new IllegalArgumentException("Invalid zeromq URI '" + uri + "': " + SYNTAX_HINT);
        }
        ZeroMqConfiguration config = configuration.copy();
        try {
            config.setSocketType(ZeroMqSocketType.parse(remaining.substring(0, colon)));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("Invalid zeromq URI '" + uri + "': " + e.getMessage() + "; " + SYNTAX_HINT, e);
        }
        config.setAddress(remaining.substring(colon + 1));
        // Options belong to the configuration; bind those first (consumed keys are removed), then let the endpoint take
        // Camel's standard ones (bridgeErrorHandler, exchangePattern, lazyStartProducer...). Camel rejects leftovers.
        PropertyBindingSupport.build().withRemoveParameters(true).bind(getCamelContext(), config, parameters);
        ZeroMqEndpoint endpoint = new ZeroMqEndpoint(uri, this, config);
        setProperties(endpoint, parameters);
        config.validate();
        return endpoint;
    }

    public ZeroMqConfiguration getConfiguration() {
        return configuration;
    }

    /** Component-wide defaults every endpoint starts from; each endpoint gets its own copy. */
    public void setConfiguration(ZeroMqConfiguration configuration) {
        this.configuration = configuration;
    }
}
