package dev.caravan.policies;

import java.util.List;

/**
 * Chooses one worker for a request. One implementation per file, built by {@code PolicyFactory} from a
 * {@code PolicyConfig}; names and semantics follow SGLang's gateway (see docs/policies.md).
 *
 * <p>Contract:
 * <ul>
 *   <li>{@code candidates} is the router's pre-filtered list (available workers of the right model and role, in
 *       registry order). Policies still skip workers that are not {@link Worker#isHealthy() healthy}, as SGLang does.</li>
 *   <li>{@link #select} never returns a worker outside {@code candidates}; it returns {@link Decision#none} when it
 *       cannot choose, and always names the branch taken.</li>
 *   <li>{@link #select} is called concurrently from many request threads and must be thread-safe and non-blocking.</li>
 *   <li>The policy does not touch load counters: the caller acquires a {@link WorkerLease} for the chosen worker.</li>
 * </ul>
 */
public interface LoadBalancingPolicy {

    Decision select(List<Worker> candidates, SelectionContext context);

    /** The canonical SGLang name, e.g. {@code cache_aware}. */
    String name();

    /** True when the policy reads {@link SelectionContext#requestText()}, so the caller must extract it. */
    default boolean needsRequestText() {
        return false;
    }

    /** A worker joined the pool this policy serves. */
    default void onWorkerAdded(Worker worker) {
    }

    /** A worker left the pool this policy serves (drop its tree tenancy, sticky keys, ...). */
    default void onWorkerRemoved(Worker worker) {
    }

    /** A request routed by this policy finished; {@code success} is the breaker's view of the outcome. */
    default void onRequestComplete(Worker worker, boolean success) {
    }

    /** Forgets all learned state (counters, trees, sticky maps). */
    default void reset() {
    }
}
