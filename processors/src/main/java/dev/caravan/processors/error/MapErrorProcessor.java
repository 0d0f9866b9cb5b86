package dev.caravan.processors.error;

import static dev.caravan.processors.CaravanExchangeProperties.ERROR_CODE;
import static dev.caravan.processors.CaravanExchangeProperties.REQUEST_ID;
import static dev.caravan.processors.CaravanExchangeProperties.RESPONSE_COMMITTED;
import static dev.caravan.processors.CaravanExchangeProperties.RESPONSE_HEADERS;
import static dev.caravan.processors.CaravanExchangeProperties.RESPONSE_STATUS;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.caravan.components.http.ErrorBody;

/**
 * Error step {@code mapError}, called from the routes' {@code onException}: turns the caught exception into the
 * gateway's JSON error response. A {@link GatewayException} keeps its status, code and message; anything else is a bug or
 * a misconfiguration and becomes a 500 {@code internal_error} with a generic message (the details go to the log, never
 * to the client). If a streaming step already committed the response there is nothing left to write.
 *
 * <p>Writes the body, {@code Content-Type}, {@code CamelHttpResponseCode}, {@value ErrorBody#ERROR_CODE_HEADER}, the
 * headers every response of the request carries ({@code RESPONSE_HEADERS}: a rate-limited tenant's
 * {@code x-ratelimit-*}), then the exception's own ({@link GatewayException#headers()}: a 429's {@code Retry-After} and
 * rate-limit headers), and the
 * properties {@code ERROR_CODE} and {@code RESPONSE_STATUS}.
 */
public final class MapErrorProcessor implements Processor {

    private static final Logger LOG = LoggerFactory.getLogger(MapErrorProcessor.class);

    @Override
    public void process(Exchange exchange) {
        Throwable caught = exchange.getProperty(Exchange.EXCEPTION_CAUGHT, Throwable.class);
        if (caught == null) {
            caught = exchange.getException();
        }
        GatewayError error;
        String message;
        java.util.Map<String, String> headers = java.util.Map.of();
        if (caught instanceof GatewayException g) {
            headers = g.headers();
            error = g.error();
            message = g.getMessage();
            LOG.debug("Request {} answered {} {}: {}", REQUEST_ID.get(exchange),
                    error.status(), error.code(), message);
        } else {
            error = GatewayError.INTERNAL;
            message = "the gateway failed to process the request";
            LOG.error("Unexpected failure in route {}", exchange.getFromRouteId(), caught);
        }
        ERROR_CODE.set(exchange, error.code());
        if (RESPONSE_COMMITTED.get(exchange, false)) {
            return;
        }
        RESPONSE_STATUS.set(exchange, error.status());
        var msg = exchange.getMessage();
        msg.setHeader(Exchange.HTTP_RESPONSE_CODE, error.status());
        msg.setHeader(Exchange.CONTENT_TYPE, ErrorBody.CONTENT_TYPE);
        msg.setHeader(ErrorBody.ERROR_CODE_HEADER, error.code());
        java.util.Map<String, String> always = RESPONSE_HEADERS.get(exchange);
        if (always != null) {
            always.forEach(msg::setHeader);
        }
        headers.forEach(msg::setHeader); // the error's own (a 429's current figures) win
        msg.setBody(ErrorBody.json(error.status(), error.code(), message));
    }
}
