package dev.caravan.processors.admission;

import dev.caravan.processors.error.GatewayError;

/** Why a request was not admitted, and the error the client gets. */
public enum Rejection {
    /** Every slot busy and the queue full (or no queue): 429. */
    QUEUE_FULL(GatewayError.QUEUE_FULL),
    /** Waited {@code --queue-timeout-secs} without getting a slot: 408. */
    QUEUE_TIMEOUT(GatewayError.QUEUE_TIMEOUT),
    /** Over {@code --rate-limit-tokens-per-second}: 429. */
    RATE_LIMITED(GatewayError.RATE_LIMITED),
    /** The gateway is draining for shutdown: 503. */
    SHUTTING_DOWN(GatewayError.SHUTTING_DOWN),
    /** The client left while queued; nothing is sent. */
    CLIENT_GONE(null);

    private final GatewayError error;

    Rejection(GatewayError error) {
        this.error = error;
    }

    /** The error answered, or null when there is no one to answer. */
    public GatewayError error() {
        return error;
    }

    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
