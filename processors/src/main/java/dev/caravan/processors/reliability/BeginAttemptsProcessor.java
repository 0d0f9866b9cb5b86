package dev.caravan.processors.reliability;

import static dev.caravan.processors.CaravanExchangeProperties.ATTEMPT_PENDING;
import static dev.caravan.processors.CaravanExchangeProperties.EXCLUDED_WORKERS;
import static dev.caravan.processors.CaravanExchangeProperties.HOLD_BACK_STATUSES;

import java.util.function.IntPredicate;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;

/**
 * Route step {@code beginAttempts}, first in the attempt loop's route: starts the request's {@link RetryState} (first
 * attempt), makes the loop run once ({@code ATTEMPT_PENDING}), exposes the excluded workers to the selection steps
 * ({@code EXCLUDED_WORKERS}) and, when a retry is allowed, tells the relaying steps to hold back a retryable status
 * instead of relaying it ({@code HOLD_BACK_STATUSES}).
 *
 * <p>The loop (in the {@code inference} route, ingress.camel.yaml), written once for every attempt body:
 * {@code beginAttempts → loop while ATTEMPT_PENDING [ doTry(attempt body) → decideRetry → awaitBackoff ]}, where the
 * body is the regular forward (selectWorker, forwardStream) or {@code direct:attempt-<ATTEMPT>}, a P/D one
 * (pd.camel.yaml).
 */
public final class BeginAttemptsProcessor implements Processor {

    /** The statuses held back while another attempt is allowed. */
    static final IntPredicate RETRYABLE = RetryConfig::isRetryableStatus;

    private final RetryConfig config;

    public BeginAttemptsProcessor(RetryConfig config) {
        this.config = config;
    }

    @Override
    public void process(Exchange exchange) {
        RetryState state = new RetryState(config.maxAttempts());
        state.startAttempt();
        RetryState.PROPERTY.set(exchange, state);
        EXCLUDED_WORKERS.set(exchange, state.excluded());
        ATTEMPT_PENDING.set(exchange, true);
        if (state.moreAttemptsAllowed()) {
            HOLD_BACK_STATUSES.set(exchange, RETRYABLE);
        }
    }
}
