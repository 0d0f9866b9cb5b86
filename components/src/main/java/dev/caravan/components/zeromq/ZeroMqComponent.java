package dev.caravan.components.zeromq;

import java.util.Map;

import org.apache.camel.Endpoint;
import org.apache.camel.spi.Metadata;
import org.apache.camel.spi.annotations.Component;
import org.apache.camel.support.DefaultComponent;

/**
 * The {@code zeromq:} component: ZeroMQ sockets (JeroMQ, pure Java) as Camel endpoints. Apache Camel 4 ships no ZeroMQ
 * component; Caravan needs one to consume engines' KV-cache events.
 *
 * <p>URI syntax: {@code zeromq:socketType:address[?options]}, for example
 * {@code zeromq:sub:tcp://engine-a:5557?topics=kv@}, {@code zeromq:dealer:tcp://engine-a:5558?identity=caravan},
 * {@code zeromq:pub:tcp://*:5557}. Options are declared once in {@link ZeroMqConfiguration}; the build generates from it
 * the catalog JSON ({@code META-INF/dev/caravan/components/zeromq/zeromq.json}), the option table of
 * {@code components/src/main/docs/zeromq-component.adoc} and the configurers that bind options without reflection.
 *
 * <p>Each endpoint gets its own copy of the component-level {@link #getConfiguration() configuration} (which
 * {@code camel.component.zeromq.*} properties set), then the URI's options are bound onto it by the generated
 * {@code ZeroMqEndpointConfigurer}; an option the catalog does not list fails endpoint creation.
 */
@Component("zeromq")
public class ZeroMqComponent extends DefaultComponent {

    static final String SYNTAX_HINT = "expected zeromq:socketType:address, e.g. zeromq:sub:tcp://engine-a:5557?topics=kv@"
            + " (socketType sub, dealer or pub)";

    @Metadata(label = "advanced", description = "Component-wide defaults every endpoint starts from (each endpoint gets its"
            + " own copy).")
    private ZeroMqConfiguration configuration = new ZeroMqConfiguration();

    @Override
    protected Endpoint createEndpoint(String uri, String remaining, Map<String, Object> parameters) throws Exception {
        int colon = remaining == null ? -1 : remaining.indexOf(':');
        if (colon <= 0 || colon == remaining.length() - 1) {
            throw new IllegalArgumentException("Invalid zeromq URI '" + uri + "': " + SYNTAX_HINT);
        }
        ZeroMqConfiguration config = configuration.copy();
        try {
            config.setSocketType(remaining.substring(0, colon));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("Invalid zeromq URI '" + uri + "': " + e.getMessage() + "; " + SYNTAX_HINT, e);
        }
        config.setAddress(remaining.substring(colon + 1));
        ZeroMqEndpoint endpoint = new ZeroMqEndpoint(uri, this, config);
        // Binds through ZeroMqEndpoint#configureProperties (generated configurer only); Camel rejects what is left over.
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
