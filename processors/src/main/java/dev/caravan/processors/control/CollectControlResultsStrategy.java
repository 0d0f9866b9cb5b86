package dev.caravan.processors.control;

import static dev.caravan.processors.CaravanExchangeProperties.CONTROL_ERROR;

import java.util.ArrayList;
import java.util.List;

import org.apache.camel.AggregationStrategy;
import org.apache.camel.Exchange;

/**
 * Aggregation strategy {@code collectControlResults} of the {@code call-workers} split: gathers one
 * {@link ControlResult} per sub-exchange into a {@code List<ControlResult>} body (in completion order). The headers of the
 * aggregate are cleared so no worker's response headers leak into the answer the calling route builds. Camel calls
 * {@link #aggregate} one at a time, even for a parallel split.
 */
public final class CollectControlResultsStrategy implements AggregationStrategy {

    @Override
    @SuppressWarnings("unchecked")
    public Exchange aggregate(Exchange oldExchange, Exchange newExchange) {
        ControlResult result = resultOf(newExchange);
        Exchange target = oldExchange == null ? newExchange : oldExchange;
        List<ControlResult> results;
        if (oldExchange == null) {
            results = new ArrayList<>();
        } else {
            results = oldExchange.getMessage().getBody(List.class);
        }
        results.add(result);
        target.getMessage().getHeaders().clear();
        target.getMessage().setBody(results);
        target.setException(null);
        return target;
    }

    private static ControlResult resultOf(Exchange sub) {
        ControlCall call = ControlCall.PROPERTY.get(sub);
        String error = CONTROL_ERROR.get(sub);
        if (error == null && sub.getException() != null) {
            error = sub.getException().getMessage();
        }
        if (error != null) {
            return new ControlResult(call, -1, null, error);
        }
        Integer status = sub.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE, Integer.class);
        String body = sub.getMessage().getBody(String.class);
        return new ControlResult(call, status == null ? -1 : status, body, status == null ? "no response" : null);
    }
}
