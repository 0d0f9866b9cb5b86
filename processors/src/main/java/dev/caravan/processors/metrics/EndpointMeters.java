package dev.caravan.processors.metrics;

import java.util.concurrent.atomic.AtomicReferenceArray;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;

/**
 * The meters of one endpoint, looked up by its path alone: a request's meters are then a field or an array slot
 * away, where each was a {@link MeterKey} built and hashed per request. Created through the same look-ups as
 * before (the same meters, registered when first used); statuses outside 0..599 and error codes go through them.
 */
final class EndpointMeters {

    private static final int STATUSES = 600;
    private final GatewayMetrics owner;
    private final String endpoint;
    private final Timer duration;
    private volatile Timer ttfb;
    private volatile MethodMeters lastMethod;
    private final AtomicReferenceArray<Counter> requests = new AtomicReferenceArray<>(STATUSES);
    private final AtomicReferenceArray<Counter> responses = new AtomicReferenceArray<>(STATUSES);

    EndpointMeters(GatewayMetrics owner, String endpoint) {
        this.owner = owner;
        this.endpoint = endpoint;
        this.duration = owner.timer("caravan.request.duration", "Time from request arrival to the end of the response",
                endpoint);
    }

    /** {@code caravan_request_duration_seconds} of the endpoint. */
    Timer duration() {
        return duration;
    }

    /** {@code caravan_requests_total} of the endpoint and a status. */
    Counter requests(int status) {
        if (status < 0 || status >= STATUSES) {
            return owner.requests(endpoint, status);
        }
        Counter c = requests.get(status);
        if (c == null) {
            c = owner.requests(endpoint, status);
            requests.set(status, c);
        }
        return c;
    }

    /** {@code smg_http_responses_total} of a response without an error code. */
    Counter responses(int status) {
        if (status < 0 || status >= STATUSES) {
            return owner.responses("", status);
        }
        Counter c = responses.get(status);
        if (c == null) {
            c = owner.responses("", status);
            responses.set(status, c);
        }
        return c;
    }

    Timer ttfb() {
        Timer t = ttfb;
        if (t == null) {
            t = owner.timer("caravan.time.to.first.byte", "Time from request arrival to the upstream response head",
                    endpoint);
            ttfb = t;
        }
        return t;
    }

    MethodMeters method(String m) {
        MethodMeters last = lastMethod;
        if (last == null || !last.method().equals(m)) {
            last = owner.methodMeters(m, endpoint);
            lastMethod = last;
        }
        return last;
    }
}
