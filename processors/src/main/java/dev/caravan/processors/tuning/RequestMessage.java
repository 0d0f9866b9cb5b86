package dev.caravan.processors.tuning;

import java.util.Map;

import org.apache.camel.Exchange;
import org.apache.camel.component.platform.http.vertx.HttpMessage;

import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;

/**
 * The Camel message of a request the gateway serves: platform-http's {@link HttpMessage} whose headers are a
 * {@link HeaderMap} instead of Camel's sorted {@code CaseInsensitiveMap} (the same look-ups ignoring case; iterated in
 * the order the headers were put). Camel's platform-http consumer fills it as it fills its own message.
 *
 * <p>A copy of the message (a wire tap's, {@link #newInstance}) is one of these too.
 */
final class RequestMessage extends HttpMessage {

    RequestMessage(Exchange exchange, HttpServerRequest request, HttpServerResponse response) {
        super(exchange, request, response);
    }

    @Override
    protected Map<String, Object> createHeaders() {
        Map<String, Object> map = new HeaderMap();
        populateInitialHeaders(map);
        return map;
    }

    @Override
    public RequestMessage newInstance() {
        return new RequestMessage(getExchange(), getRequest(), getResponse());
    }
}
