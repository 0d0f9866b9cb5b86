package dev.caravan.components.http;

import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import org.apache.camel.Exchange;
import org.apache.camel.component.platform.http.vertx.HttpMessage;

/**
 * Makes the Camel message of a new request exchange, before platform-http fills it (its headers, body and parameters):
 * platform-http fills a {@link HttpMessage} it finds on the exchange instead of creating its own. It gets the exchange
 * as Camel's exchange factory made it, before anything else touched it, and may prepare it through Camel's public API.
 * Called on the connection's event loop, once per request; it must not block.
 */
@FunctionalInterface
public interface RequestMessageFactory {

    /** Platform-http's own message: the consumer leaves the exchange as Camel made it. */
    RequestMessageFactory CAMEL = (exchange, request, response) -> null;

    /**
     * @return the message to fill, or null for platform-http's own {@link HttpMessage}
     */
    HttpMessage create(Exchange exchange, HttpServerRequest request, HttpServerResponse response);
}
