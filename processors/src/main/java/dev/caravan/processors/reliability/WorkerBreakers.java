package dev.caravan.processors.reliability;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig.SlidingWindowType;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.github.resilience4j.circuitbreaker.IllegalStateTransitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerListener;

/**
 * One circuit breaker per worker: a resilience4j {@link CircuitBreakerRegistry} keyed by worker id (not Camel's
 * circuitBreaker EIP, which keeps one breaker per route node: docs/design/upstream.md, "Camel: the circuitBreaker EIP
 * keeps one breaker per route node").
 *
 * <p><b>Lifecycle.</b> Registered as a {@link WorkerListener}: a breaker is created when a worker joins and installed as
 * its {@link Worker#setAvailabilityGate availability gate}, so the router's pre-filter ({@link Worker#isAvailable()})
 * skips a worker whose breaker is open; it is dropped when the worker leaves.
 *
 * <p><b>Semantics (SGLang's, docs/design/upstream.md, "SGLang: circuit breaker and retries").</b> Closed: opens after
 * {@code failureThreshold} <em>consecutive</em> failures (a success in between starts the count again) — resilience4j's
 * count-based window of that size with a 100 % failure-rate threshold is exactly that. Open: excludes the worker; once
 * {@code openTimeout} has passed on the injected clock, the next availability check (or control call) moves it to
 * half-open (lazily, on read, as SGLang does; no timer thread). Half-open: the worker is selectable again (all of its
 * share, as in SGLang); any recorded failure reopens it at once (an error-event listener, so it holds for the control
 * plane's failures too), and {@code successThreshold} successes close it (counted here: resilience4j would judge a
 * failure <em>rate</em> once its half-open window is full, and sizes that window by the smaller of the two thresholds).
 * Neutral outcomes ({@link AttemptOutcome#NEUTRAL}: 4xx, 503, client hang-ups) are not recorded at all. Call durations
 * are recorded as zero, so resilience4j's slow-call rule never opens a breaker for a long generation.
 *
 * <p><b>The control plane shares it.</b> The per-worker control routes (load polls, {@code /flush_cache}, server info,
 * {@code /health_generate}) run their calls through Camel's circuitBreaker EIP on {@link #controlBreaker(Worker)}: the
 * same breaker, seen through {@link ControlCallBreaker}, whose failures count and whose successes are neutral (an
 * engine that answers {@code /get_load} but fails every generation must still open).
 *
 * <p><b>API</b> (shared by the regular forward path and P/D dispatch): {@link #record(Worker, AttemptOutcome)} once per
 * attempt when it ends, {@link #state(Worker)}, {@link #allowsRequests(Worker)}. Thread-safe; recording is lock-free
 * apart from resilience4j's own atomic state updates.
 */
public final class WorkerBreakers implements WorkerListener {

    private static final Logger LOG = LoggerFactory.getLogger(WorkerBreakers.class);
    /** Calls are recorded with duration 0; this only keeps the slow-call rule out of the way. */
    private static final Duration NEVER_SLOW = Duration.ofDays(365);

    private final BreakerConfig config;
    private final CircuitBreakerRegistry registry;
    private final Map<String, Entry> byWorkerId = new ConcurrentHashMap<>();
    private final List<BreakerObserver> observers = new CopyOnWriteArrayList<>();

    /**
     * @param config the thresholds
     * @param clock  the clock resilience4j measures the open timeout on (a controllable one in tests)
     */
    public WorkerBreakers(BreakerConfig config, Clock clock) {
        this.config = config;
        this.registry = CircuitBreakerRegistry.of(CircuitBreakerConfig.custom()
                .slidingWindowType(SlidingWindowType.COUNT_BASED)
                .slidingWindowSize(config.failureThreshold())
                .minimumNumberOfCalls(config.failureThreshold())
                .failureRateThreshold(100)
                .permittedNumberOfCallsInHalfOpenState(config.successThreshold())
                .waitDurationInOpenState(config.openTimeout())
                .automaticTransitionFromOpenToHalfOpenEnabled(false)
                .slowCallDurationThreshold(NEVER_SLOW)
                .writableStackTraceEnabled(false)
                .clock(clock)
                .build());
    }

    public BreakerConfig config() {
        return config;
    }

    public void addObserver(BreakerObserver observer) {
        observers.add(observer);
    }

    @Override
    public void onWorkerAdded(Worker worker) {
        if (!config.enabled()) {
            return;
        }
        CircuitBreaker breaker = registry.circuitBreaker(worker.id());
        Entry entry = new Entry(breaker);
        breaker.getEventPublisher().onStateTransition(e -> {
            BreakerState from = map(e.getStateTransition().getFromState());
            BreakerState to = map(e.getStateTransition().getToState());
            if (to == BreakerState.OPEN) {
                entry.halfOpenSuccesses.set(0); // long before it can become half-open again
            }
            entry.closedSuccesses.set(0);
            LOG.info("Circuit breaker of {}: {} -> {}", worker.url(), from.label(), to.label());
            for (BreakerObserver o : observers) {
                o.onTransition(worker, from, to);
            }
        });
        // SGLang's half-open rule: any failure reopens. The event comes before resilience4j's state records the error,
        // so the failure lands in the new open state and never counts towards a half-open verdict.
        breaker.getEventPublisher().onError(e -> {
            entry.closedSuccesses.set(0);
            if (breaker.getState() == CircuitBreaker.State.HALF_OPEN) {
                transition(breaker::transitionToOpenState);
            }
        });
        byWorkerId.put(worker.id(), entry);
        worker.setAvailabilityGate(() -> allows(breaker));
    }

    @Override
    public void onWorkerRemoved(Worker worker) {
        if (byWorkerId.remove(worker.id()) != null) {
            registry.remove(worker.id());
        }
    }

    /**
     * Records how one attempt on {@code worker} ended. Outcomes of workers that have left (a draining request finishing)
     * are dropped.
     */
    public void record(Worker worker, AttemptOutcome outcome) {
        Entry entry = byWorkerId.get(worker.id());
        if (entry == null) {
            return;
        }
        for (BreakerObserver o : observers) {
            o.onOutcome(worker, outcome);
        }
        if (outcome == AttemptOutcome.NEUTRAL) {
            return;
        }
        CircuitBreaker breaker = entry.breaker;
        if (outcome == AttemptOutcome.SUCCESS && breaker.getState() == CircuitBreaker.State.HALF_OPEN) {
            if (entry.halfOpenSuccesses.incrementAndGet() >= config.successThreshold()) {
                transition(breaker::transitionToClosedState);
            }
        } else if (outcome == AttemptOutcome.SUCCESS) {
            recordSuccess(entry);
        } else {
            breaker.onError(0, TimeUnit.NANOSECONDS, AttemptFailure.INSTANCE);
        }
    }

    /**
     * A success in the closed state only matters while the window still holds a failure: once the last
     * {@code failureThreshold} recorded calls are all successes, another one changes nothing the breaker decides on, so
     * it is not handed to resilience4j, which would build an event (with a {@code ZonedDateTime}) for this class's
     * listeners on every success (design/request-path.md, "Per-request cost"). Any recorded failure, the control
     * plane's included, and any transition start the count again.
     */
    private void recordSuccess(Entry entry) {
        if (entry.closedSuccesses.get() >= config.failureThreshold()) {
            return;
        }
        entry.closedSuccesses.incrementAndGet();
        entry.breaker.onSuccess(0, TimeUnit.NANOSECONDS);
    }

    private static void transition(Runnable change) {
        try {
            change.run();
        } catch (IllegalStateTransitionException raced) {
            // another thread moved the breaker first; its move stands
        }
    }

    /** The breaker's state; {@link BreakerState#CLOSED} for unknown workers and when breakers are disabled. */
    public BreakerState state(Worker worker) {
        Entry entry = byWorkerId.get(worker.id());
        return entry == null ? BreakerState.CLOSED : map(entry.breaker.getState());
    }

    /** Whether the breaker lets requests reach the worker now (moves an expired open breaker to half-open). */
    public boolean allowsRequests(Worker worker) {
        Entry entry = byWorkerId.get(worker.id());
        return entry == null || allows(entry.breaker);
    }

    /**
     * The breaker the worker's control-plane route hands to Camel's circuitBreaker EIP: its own breaker as a
     * {@link ControlCallBreaker} (failures count, successes are neutral). When breakers are disabled, or the worker is
     * unknown, a breaker of its own in resilience4j's DISABLED state (always permits, records nothing), so the route
     * and Camel's tooling still show one.
     */
    public CircuitBreaker controlBreaker(Worker worker) {
        Entry entry = byWorkerId.get(worker.id());
        if (entry != null) {
            return new ControlCallBreaker(entry.breaker);
        }
        CircuitBreaker disabled = CircuitBreaker.ofDefaults(worker.id());
        disabled.transitionToDisabledState();
        return disabled;
    }

    private static boolean allows(CircuitBreaker breaker) {
        CircuitBreaker.State state = breaker.getState();
        if (state != CircuitBreaker.State.OPEN) {
            return true;
        }
        // resilience4j's open state compares its clock with the end of the wait and, once it has passed, moves to
        // half-open and admits the call; before that it only counts a "not permitted" call.
        return breaker.tryAcquirePermission() || breaker.getState() == CircuitBreaker.State.HALF_OPEN;
    }

    private static BreakerState map(CircuitBreaker.State state) {
        return switch (state) {
            case OPEN, FORCED_OPEN -> BreakerState.OPEN;
            case HALF_OPEN -> BreakerState.HALF_OPEN;
            default -> BreakerState.CLOSED;
        };
    }

    /**
     * A worker's breaker, the successes it has seen since it last became half-open (SGLang's half-open count), and the
     * successes recorded in its closed window since its last failure or transition.
     */
    private static final class Entry {
        final CircuitBreaker breaker;
        final AtomicInteger halfOpenSuccesses = new AtomicInteger();
        final AtomicInteger closedSuccesses = new AtomicInteger();

        Entry(CircuitBreaker breaker) {
            this.breaker = breaker;
        }
    }

    /** The throwable resilience4j wants for a failed call; no stack trace, one shared instance. */
    private static final class AttemptFailure extends RuntimeException {
        static final AttemptFailure INSTANCE = new AttemptFailure();

        private AttemptFailure() {
            super("attempt failed", null, false, false);
        }
    }
}
