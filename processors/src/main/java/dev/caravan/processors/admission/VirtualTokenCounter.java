package dev.caravan.processors.admission;

import java.util.HashMap;
import java.util.Map;

/**
 * Virtual token counters (VTC, Sheng et al., "Fairness in Serving Large Language Models", OSDI 2024): one counter per
 * tenant of the tokens it has been served — prompt tokens when a request is admitted, output tokens (and the prompt's
 * correction) when it ends. Among the tenants waiting in one class, the one with the lowest counter goes next, so over
 * time each backlogged tenant is served the same number of tokens, whatever the size or rate of its requests.
 *
 * <p>A tenant that was idle must not bank credit: when it starts waiting again its counter is lifted to a floor (the
 * lowest counter of the tenants already waiting, else the counter of the last tenant served). Counters only grow; they
 * are keyed by tenant name, and the tenants are those of the tenants file plus {@code other}, so the map stays small.
 *
 * <p>Not thread-safe: guarded by the {@link AdmissionController}'s lock.
 */
final class VirtualTokenCounter {

    private final Map<String, Long> counters = new HashMap<>();

    long value(String tenant) {
        return counters.getOrDefault(tenant, 0L);
    }

    /** Adds tokens served (a negative correction never takes a counter below zero). */
    void charge(String tenant, long tokens) {
        counters.merge(tenant, tokens, (a, b) -> Math.max(0, a + b));
    }

    /** Raises the tenant's counter to {@code floor} when it is lower. */
    void lift(String tenant, long floor) {
        if (value(tenant) < floor) {
            counters.put(tenant, floor);
        }
    }
}
