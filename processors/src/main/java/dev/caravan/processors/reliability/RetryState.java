package dev.caravan.processors.reliability;

import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Set;

import org.apache.camel.Exchange;

import dev.caravan.policies.Worker;
import dev.caravan.processors.ExchangeProperty;

/**
 * One request's progress through its attempts ({@code RetryState.PROPERTY}): how many started, which workers failed it
 * (they are also the live {@code EXCLUDED_WORKERS} set {@code selectWorker} reads), and the back-off before the next
 * one. Touched only by the request's own steps, one at a time, so it needs no synchronisation.
 */
public final class RetryState {

    /** The request's attempts: how many, workers to avoid, the next back-off (written by {@code beginAttempts}). */
    public static final ExchangeProperty<RetryState> PROPERTY =
            ExchangeProperty.of("caravanRetryState", RetryState.class);

    private final int maxAttempts;
    private final Set<Worker> excluded = new LinkedHashSet<>();
    private int attempts;
    private long nextDelayMillis;

    public RetryState(int maxAttempts) {
        this.maxAttempts = maxAttempts;
    }

    /** The state of an exchange's attempts, or null before {@code beginAttempts}. */
    public static RetryState of(Exchange exchange) {
        return RetryState.PROPERTY.get(exchange);
    }

    /** Counts an attempt as started. */
    void startAttempt() {
        attempts++;
    }

    /** Attempts started so far. */
    public int attempts() {
        return attempts;
    }

    public int maxAttempts() {
        return maxAttempts;
    }

    /** True when the attempt now running is not the last one allowed. */
    public boolean moreAttemptsAllowed() {
        return attempts < maxAttempts;
    }

    /** Keeps a worker out of this request's later attempts (while any other is available). */
    public void exclude(Worker worker) {
        excluded.add(worker);
    }

    /** Live, read-only view of the excluded workers. */
    public Set<Worker> excluded() {
        return Collections.unmodifiableSet(excluded);
    }

    long nextDelayMillis() {
        return nextDelayMillis;
    }

    void setNextDelayMillis(long millis) {
        this.nextDelayMillis = millis;
    }
}
