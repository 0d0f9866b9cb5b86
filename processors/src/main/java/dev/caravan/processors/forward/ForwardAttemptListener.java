package dev.caravan.processors.forward;

import dev.caravan.policies.Worker;

/**
 * Told once per forward attempt, when it ends, how it went: the hook the per-worker circuit breakers are fed from
 * ({@code AttemptOutcome.classify(outcome, status)}). Called on the client connection's event loop; must be quick and
 * must not block.
 */
@FunctionalInterface
public interface ForwardAttemptListener {

    /**
     * @param worker  the worker the attempt went to
     * @param outcome how it ended ({@link ForwardOutcomes})
     * @param status  the worker's HTTP status (499 when the client left), or null when no response head arrived
     */
    void onAttemptEnded(Worker worker, String outcome, Integer status);

    ForwardAttemptListener NONE = (worker, outcome, status) -> {
    };
}
