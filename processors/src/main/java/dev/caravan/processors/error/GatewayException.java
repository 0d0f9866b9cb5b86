package dev.caravan.processors.error;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A failure the client should see as a specific HTTP error. Thrown by processors (or set on the exchange by asynchronous
 * ones) and turned into the JSON error body by {@code mapError}; its message goes to the client, so it must never hold a
 * stack trace, a secret or an internal class name. No stack trace is captured: these are expected outcomes, not bugs.
 */
public final class GatewayException extends RuntimeException {

    private final GatewayError error;
    private final Map<String, String> headers;

    public GatewayException(GatewayError error, String message) {
        this(error, message, Map.of());
    }

    private GatewayException(GatewayError error, String message, Map<String, String> headers) {
        super(message, null, false, false);
        this.error = error;
        this.headers = headers;
    }

    public GatewayError error() {
        return error;
    }

    /** Response headers the error answer carries besides the body's (a 429's {@code Retry-After}); often none. */
    public Map<String, String> headers() {
        return headers;
    }

    /** The same error, answered with these headers too (insertion order kept). */
    public GatewayException withHeaders(Map<String, String> extra) {
        Map<String, String> all = new LinkedHashMap<>(headers);
        all.putAll(extra);
        return new GatewayException(error, getMessage(), Collections.unmodifiableMap(all));
    }
}
