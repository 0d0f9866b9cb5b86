package dev.caravan.processors.reliability;

import dev.caravan.policies.Worker;

/**
 * Told about every outcome a worker breaker recorded and every state change (metrics, tests). Called synchronously on the
 * thread that recorded the outcome (often a Vert.x event loop): must be quick and must not throw.
 */
public interface BreakerObserver {

    default void onOutcome(Worker worker, AttemptOutcome outcome) {
    }

    default void onTransition(Worker worker, BreakerState from, BreakerState to) {
    }
}
