package dev.caravan.processors;

import io.vertx.core.buffer.Buffer;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A started {@link CamelContext} for tests that run processors on hand-built exchanges, closed after the test class
 * ({@code @RegisterExtension static final StartedCamel CAMEL = new StartedCamel();}). Started, because a started
 * context gives messages Camel's case-insensitive headers, as in the running gateway.
 */
public final class StartedCamel implements AfterAllCallback {

    private final CamelContext context = new DefaultCamelContext();

    public StartedCamel() {
        context.start();
    }

    /** A fresh exchange of this context. */
    public Exchange exchange() {
        return new DefaultExchange(context);
    }

    /** A fresh exchange whose message carries header {@code name} = {@code value}, or no such header when null. */
    public Exchange exchange(String name, Object value) {
        Exchange e = exchange();
        if (value != null) {
            e.getIn().setHeader(name, value);
        }
        return e;
    }

    /** A fresh exchange carrying {@code body} as a JSON request, the way platform-http hands one to a route. */
    public Exchange json(String body) {
        Exchange e = exchange("Content-Type", "application/json");
        e.getIn().setBody(Buffer.buffer(body));
        return e;
    }

    @Override
    public void afterAll(ExtensionContext extension) throws Exception {
        context.close();
    }
}
