package dev.caravan.policies.internal;

import dev.caravan.policies.LoadBalancingPolicy;
import dev.caravan.policies.Worker;

/**
 * The consistent-hashing family (consistent_hashing, bounded_consistent_hashing, prefix_hash): per-model rings of
 * virtual nodes kept in step with the worker registry. Subclasses only decide which key to look up and what to do with
 * the ring's answer.
 */
abstract class RingPolicy implements LoadBalancingPolicy {

    /** Rebuilt on worker add/remove only; thread-safety as documented by {@link HashRings}. */
    protected final HashRings rings = new HashRings();

    @Override
    public void onWorkerAdded(Worker worker) {
        rings.add(worker);
    }

    @Override
    public void onWorkerRemoved(Worker worker) {
        rings.remove(worker);
    }

    @Override
    public void reset() {
        rings.clear();
    }
}
