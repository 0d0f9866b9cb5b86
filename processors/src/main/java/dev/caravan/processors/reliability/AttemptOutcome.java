package dev.caravan.processors.reliability;

import dev.caravan.processors.forward.ForwardOutcomes;

/**
 * What one attempt on a worker says about that worker's health, as its circuit breaker counts it.
 *
 * <p>Only the worker's own failures count against it: a 5xx (other than 503), a transport failure (refused, reset,
 * broken mid-stream) or a timeout. A client's mistake (any 4xx, including 408 and 429), a client that hung up, and a 503
 * (an engine saying it is full: back-pressure, not breakage — SGLang #25811, #39464) are {@link #NEUTRAL}: neither a
 * success nor a failure, so a flood of bad requests or a busy engine never trips a breaker and never closes one either.
 */
public enum AttemptOutcome {
    SUCCESS,
    FAILURE,
    NEUTRAL;

    /**
     * @param forwardOutcome how the forward ended ({@link ForwardOutcomes}), or null
     * @param status         the worker's HTTP status, or null when none arrived
     */
    public static AttemptOutcome classify(String forwardOutcome, Integer status) {
        if (forwardOutcome != null) {
            switch (forwardOutcome) {
                case ForwardOutcomes.CLIENT_CLOSED:
                    return NEUTRAL;
                case ForwardOutcomes.UPSTREAM_FAILED:
                case ForwardOutcomes.TIMEOUT:
                case ForwardOutcomes.IDLE_TIMEOUT:
                case ForwardOutcomes.ATTEMPT_TIMEOUT:
                    return FAILURE;
                default:
                    break;
            }
        }
        return status == null ? NEUTRAL : ofStatus(status);
    }

    /** A complete response's status: 1xx-3xx success, 4xx and 503 neutral, other 5xx failure. */
    public static AttemptOutcome ofStatus(int status) {
        if (status < 400) {
            return SUCCESS;
        }
        if (status < 500 || status == 503) {
            return NEUTRAL;
        }
        return FAILURE;
    }
}
