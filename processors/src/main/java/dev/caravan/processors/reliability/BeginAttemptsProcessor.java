package dev.caravan.processors.reliability;

import static dev.caravan.processors.CaravanExchangeProperties.ATTEMPT_PENDING;
import static dev.caravan.processors.CaravanExchangeProperties.EXCLUDED_WORKERS;
import static dev.caravan.processors.CaravanExchangeProperties.HOLD_BACK_STATUSES;

import java.util.function.IntPredicate;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;

/**
 * Route step {@code beginAttempts}, right before the inference route's attempt loop: starts the request's
 * {@link RetryState} (first attempt), makes the loop run once ({@code ATTEMPT_PENDING}), exposes the excluded workers to
 * {@code selectWorker} ({@code EXCLUDED_WORKERS}) and, when a retry is allowed, tells the forward step to hold back a
 * retryable status instead of relaying it ({@code HOLD_BACK_STATUSES}).
 *
 * <p>The loop (ingress.camel.yaml): {@code beginAttempts → loop while ATTEMPT_PENDING [ doTry(selectWorker,
 * forwardStream) → decideRetry → awaitBackoff ]}. A P/D dispatch reuses it by putting its own step in the doTry.
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
