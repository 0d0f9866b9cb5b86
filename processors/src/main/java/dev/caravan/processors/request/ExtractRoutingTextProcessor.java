package dev.caravan.processors.request;

import java.util.Map;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;

import dev.caravan.processors.CaravanExchangeProperties;

/**
 * Route step {@code extractRoutingText}: computes the routing text of the parsed request ({@link RoutingText}) without
 * tokenizing. Reads {@code REQUEST_KIND}, {@code REQUEST_JSON}; writes {@code ROUTING_TEXT}. Wrong field types end the
 * route with a 400.
 */
public final class ExtractRoutingTextProcessor implements Processor {

    @Override
    @SuppressWarnings("unchecked")
    public void process(Exchange exchange) {
        RequestKind kind = RequestKind.parse(exchange.getProperty(CaravanExchangeProperties.REQUEST_KIND));
        Map<String, Object> json = exchange.getProperty(CaravanExchangeProperties.REQUEST_JSON, Map.class);
        if (json == null) {
            throw new IllegalStateException("extractRoutingText needs parseRequest before it");
        }
        exchange.setProperty(CaravanExchangeProperties.ROUTING_TEXT, RoutingText.extract(kind, json));
    }
}
