package dev.caravan.processors.responses;

import static dev.caravan.processors.CaravanExchangeProperties.PREFERRED_WORKER;
import static dev.caravan.processors.CaravanExchangeProperties.REQUEST_JSON;
import static dev.caravan.processors.CaravanExchangeProperties.REQUEST_KIND;

import java.util.Map;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.caravan.processors.error.GatewayError;
import dev.caravan.processors.forward.ResponseIdSink;
import dev.caravan.processors.request.RequestKind;

/**
 * Route step {@code recallPreviousResponse} (inference route, before the attempts): for a Responses API request, has the
 * response's id remembered with its worker ({@link ResponseIdSink#PROPERTY}), and when the request continues an earlier
 * response ({@code previous_response_id}) names that response's worker as {@code PREFERRED_WORKER}, so
 * {@code selectWorker} sends it to the engine that stored the conversation. An id the gateway does not know (another
 * gateway replica served it, or it expired) leaves the choice to the policy; the engine then answers as it does for an
 * unknown id. Other kinds pass untouched.
 */
public final class RecallPreviousResponseProcessor implements Processor {

    private static final Logger LOG = LoggerFactory.getLogger(RecallPreviousResponseProcessor.class);

    private final ResponseAffinity affinity;

    public RecallPreviousResponseProcessor(ResponseAffinity affinity) {
        this.affinity = affinity;
    }

    @Override
    public void process(Exchange exchange) {
        if (RequestKind.parse(REQUEST_KIND.get(exchange)) != RequestKind.RESPONSES) {
            return;
        }
        ResponseIdSink.PROPERTY.set(exchange, affinity);
        Map<String, Object> json = REQUEST_JSON.get(exchange);
        Object previous = json == null ? null : json.get("previous_response_id");
        if (previous == null) {
            return;
        }
        if (!(previous instanceof String id) || id.isBlank()) {
            throw GatewayError.INVALID_REQUEST.exception("previous_response_id must be a non-empty string");
        }
        String worker = affinity.workerOf(id);
        if (worker != null) {
            PREFERRED_WORKER.set(exchange, worker);
        } else {
            LOG.debug("previous_response_id {} is not known here; the policy chooses", id);
        }
    }
}
