package dev.caravan.processors.control;

/**
 * A worker answered a control call with a status its circuit breaker counts as a failure (a 5xx other than 503,
 * {@link dev.caravan.processors.reliability.AttemptOutcome#ofStatus}). Thrown inside the worker's control route so the
 * circuitBreaker EIP records the failure; it carries the answer, which {@code recordControlFailure} puts back on the
 * exchange so the caller still sees the worker's status and body. No stack trace: it is an outcome, not a bug.
 */
public final class ControlCallFailedException extends RuntimeException {

    private final int status;
    private final String body;

    public ControlCallFailedException(String url, int status, String body) {
        super("HTTP " + status + " from " + url, null, false, false);
        this.status = status;
        this.body = body;
    }

    public int status() {
        return status;
    }

    /** The response body, or null. */
    public String body() {
        return body;
    }
}
