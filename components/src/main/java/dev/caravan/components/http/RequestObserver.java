package dev.caravan.components.http;

import org.apache.camel.Exchange;

/**
 * Told once about every HTTP request the gateway's server answered, after the response ended (for a stream: when the
 * stream ended or the client left). Implemented by the metrics; called on a Vert.x event-loop thread, so it must not block.
 */
@FunctionalInterface
public interface RequestObserver {

    /**
     * @param exchange      the finished exchange (null for requests rejected before any route ran, e.g. unknown paths)
     * @param endpoint      the route's path template ({@code /v1/chat/completions}, {@code /workers/{id}}), or
     *                      {@code unmatched}
     * @param status        the HTTP status sent (499 when the client left before the response started)
     * @param durationNanos time from the request's arrival to the end of the response
     */
    void onRequestComplete(Exchange exchange, String endpoint, int status, long durationNanos);

    RequestObserver NONE = (exchange, endpoint, status, durationNanos) -> {
    };
}
