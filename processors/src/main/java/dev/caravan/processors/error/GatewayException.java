package dev.caravan.processors.error;

/**
 * A failure the client should see as a specific HTTP error. Thrown by processors (or set on the exchange by asynchronous
 * ones) and turned into the JSON error body by {@code mapError}; its message goes to the client, so it must never hold a
 * stack trace, a secret or an internal class name. No stack trace is captured: these are expected outcomes, not bugs.
 */
public final class GatewayException extends RuntimeException {

    private final GatewayError error;

    public GatewayException(GatewayError error, String message) {
        super(message, null, false, false);
        this.error = error;
    }

    public GatewayError error() {
        return error;
    }
}
