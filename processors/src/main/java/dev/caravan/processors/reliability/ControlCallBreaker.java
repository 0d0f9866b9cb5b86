package dev.caravan.processors.reliability;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;

/**
 * A worker's data-plane breaker as its control-plane route records into it: the same breaker object underneath (state,
 * metrics, events, transitions and permissions are the worker's own), except that a <b>successful control call is
 * neutral</b> — it only returns the permission Camel's circuitBreaker EIP took — while a failed one counts like a failed
 * attempt.
 *
 * <p>Why successes do not count: an engine in a bad state can still answer {@code /get_load} or {@code /metrics}
 * every few seconds while failing every generation; recorded as successes, those answers would keep resetting the
 * consecutive-failure count and the breaker would never open. A control call that fails (refused, reset, timed out, a
 * 5xx other than 503) is the same evidence a failed attempt gives, so it counts: an idle worker that died is taken out
 * of routing by the load monitor before a client request has to find out.
 *
 * <p>The EIP only ever calls {@link #acquirePermission}, the timestamps, {@link #onResult}/{@link #onSuccess} and
 * {@link #onError}; everything else delegates, so Camel's tooling (JMX, dev console) shows the worker's real breaker.
 */
public final class ControlCallBreaker implements CircuitBreaker {

    private final CircuitBreaker delegate;

    public ControlCallBreaker(CircuitBreaker delegate) {
        this.delegate = delegate;
    }

    /** The worker's breaker this view records into. */
    public CircuitBreaker delegate() {
        return delegate;
    }

    @Override
    public void onSuccess(long duration, TimeUnit durationUnit) {
        delegate.releasePermission();
    }

    @Override
    public void onResult(long duration, TimeUnit durationUnit, Object result) {
        delegate.releasePermission();
    }

    @Override
    public void onError(long duration, TimeUnit durationUnit, Throwable throwable) {
        delegate.onError(0, TimeUnit.NANOSECONDS, throwable);
    }

    @Override
    public boolean tryAcquirePermission() {
        return delegate.tryAcquirePermission();
    }

    @Override
    public void releasePermission() {
        delegate.releasePermission();
    }

    @Override
    public void acquirePermission() {
        delegate.acquirePermission();
    }

    @Override
    public void reset() {
        delegate.reset();
    }

    @Override
    public void transitionToClosedState() {
        delegate.transitionToClosedState();
    }

    @Override
    public void transitionToOpenState() {
        delegate.transitionToOpenState();
    }

    @Override
    public void transitionToOpenStateFor(Duration waitDuration) {
        delegate.transitionToOpenStateFor(waitDuration);
    }

    @Override
    public void transitionToOpenStateUntil(Instant waitUntil) {
        delegate.transitionToOpenStateUntil(waitUntil);
    }

    @Override
    public void transitionToHalfOpenState() {
        delegate.transitionToHalfOpenState();
    }

    @Override
    public void transitionToDisabledState() {
        delegate.transitionToDisabledState();
    }

    @Override
    public void transitionToMetricsOnlyState() {
        delegate.transitionToMetricsOnlyState();
    }

    @Override
    public void transitionToForcedOpenState() {
        delegate.transitionToForcedOpenState();
    }

    @Override
    public String getName() {
        return delegate.getName();
    }

    @Override
    public State getState() {
        return delegate.getState();
    }

    @Override
    public CircuitBreakerConfig getCircuitBreakerConfig() {
        return delegate.getCircuitBreakerConfig();
    }

    @Override
    public Metrics getMetrics() {
        return delegate.getMetrics();
    }

    @Override
    public Map<String, String> getTags() {
        return delegate.getTags();
    }

    @Override
    public EventPublisher getEventPublisher() {
        return delegate.getEventPublisher();
    }

    @Override
    public long getCurrentTimestamp() {
        return delegate.getCurrentTimestamp();
    }

    @Override
    public TimeUnit getTimestampUnit() {
        return delegate.getTimestampUnit();
    }

    @Override
    public String toString() {
        return "ControlCallBreaker[" + delegate.getName() + " " + delegate.getState() + "]";
    }
}
