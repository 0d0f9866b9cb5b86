package dev.caravan.processors.control;

import static dev.caravan.processors.CaravanExchangeProperties.CONTROL_URL;

import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.Processor;

/**
 * Control step {@code prepareControlCall}, inside the {@code call-workers} split: turns the sub-exchange's
 * {@link ControlCall} body into a clean request for {@code callWorker} — all inherited headers removed (the
 * client's request headers and Camel HTTP headers would otherwise leak into, or redirect, the call), method set, the
 * worker's (or gateway's) API key as bearer token — and stores the call, its worker's id (which picks the worker's
 * control route) and its URL in {@code ControlCall.PROPERTY}, {@code ControlCall.WORKER_ID} and {@code CONTROL_URL}.
 */
public final class PrepareControlCallProcessor implements Processor {

    private final String gatewayApiKey;

    /** @param gatewayApiKey key for workers without their own, or null */
    public PrepareControlCallProcessor(String gatewayApiKey) {
        this.gatewayApiKey = gatewayApiKey;
    }

    @Override
    public void process(Exchange exchange) {
        ControlCall call = exchange.getIn().getBody(ControlCall.class);
        if (call == null) {
            throw new IllegalStateException("prepareControlCall expects a ControlCall body");
        }
        ControlCall.PROPERTY.set(exchange, call);
        ControlCall.WORKER_ID.set(exchange, call.worker().id());
        CONTROL_URL.set(exchange, call.url());
        Message m = exchange.getIn();
        m.getHeaders().clear();
        m.setHeader(Exchange.HTTP_METHOD, call.method());
        String key = call.worker().apiKey() != null ? call.worker().apiKey() : gatewayApiKey;
        if (key != null) {
            m.setHeader("Authorization", "Bearer " + key);
        }
        if (call.body() != null) {
            m.setHeader(Exchange.CONTENT_TYPE, "application/json");
        }
        m.setBody(call.body());
    }
}
