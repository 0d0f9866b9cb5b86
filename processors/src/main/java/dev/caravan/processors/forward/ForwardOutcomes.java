package dev.caravan.processors.forward;

/**
 * The values of the {@code OUTCOME} exchange property: how one forward attempt ended. Read by the metrics
 * ({@code caravan_forward_outcomes_total{outcome}}), the circuit breakers and the retry decision.
 */
public final class ForwardOutcomes {

    /** The upstream response ended normally and was relayed (any status). */
    public static final String COMPLETED = "completed";
    /** The worker could not be reached, or the connection broke (before or during the response). */
    public static final String UPSTREAM_FAILED = "upstream_failed";
    /** The request's end-to-end deadline ({@code --request-timeout-secs}) passed. */
    public static final String TIMEOUT = "timeout";
    /** The worker sent nothing for {@code --stream-idle-timeout-secs} (before the head or between chunks). */
    public static final String IDLE_TIMEOUT = "idle_timeout";
    /**
     * A non-streamed request got no response head within {@code --non-stream-attempt-timeout-secs} of its attempt
     * (engines send it only when the generation is done): the worker is presumed hung, the attempt is retried.
     */
    public static final String ATTEMPT_TIMEOUT = "attempt_timeout";
    /** The client went away; the upstream request was cancelled. */
    public static final String CLIENT_CLOSED = "client_closed";
    /** The worker answered a retryable status and another attempt will follow: nothing was sent to the client. */
    public static final String RETRYABLE_STATUS = "retryable_status";

    private ForwardOutcomes() {
    }
}
