package dev.caravan.processors.request;

import static dev.caravan.processors.CaravanExchangeProperties.REQUEST_JSON;
import static dev.caravan.processors.CaravanExchangeProperties.REQUEST_KIND;
import static dev.caravan.processors.CaravanExchangeProperties.ROUTING_TEXT;

import java.util.Map;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;

/**
 * Route step {@code extractRoutingText}: computes the routing text of the parsed request ({@link RoutingText}) without
 * tokenizing. Reads {@code REQUEST_KIND}, {@code REQUEST_JSON}; writes {@code ROUTING_TEXT}. Wrong field types end the
 * route with a 400.
 */
public final class ExtractRoutingTextProcessor implements Processor {

    @Override
    public void process(Exchange exchange) {
        RequestKind kind = RequestKind.parse(REQUEST_KIND.get(exchange));
        Map<String, Object> json = REQUEST_JSON.get(exchange);
        if (json == null) {
            throw new IllegalStateException("extractRoutingText needs parseRequest before it");
        }
        ROUTING_TEXT.set(exchange, RoutingText.extract(kind, json));
    }
}
