package dev.caravan.policies.internal;

import java.util.concurrent.ConcurrentHashMap;

import dev.caravan.policies.tree.ApproximateRadixTree;

/**
 * cache_aware's per-worker tree budgets: {@code max-tree-size} for every worker, or the budget sized from the worker's
 * engine KV capacity ({@code --max-tree-size auto}, set through {@link dev.caravan.policies.TreeBacked}).
 *
 * <p>The two are enforced differently. A configured size keeps SGLang's meaning: the periodic eviction
 * ({@code eviction-interval}) brings each worker back to it, and between two passes the tree may hold more. A budget
 * sized from the engine stands for the engine's KV pool, which is an LRU that evicts as it stores; a tree that holds
 * minutes of traffic more than that pool believes prompts are cached that the engine has long dropped, and routes
 * their tenants as hits to what is a full prefill (docs/design/routing-core.md, "Why some defaults differ"). So an
 * engine-sized budget is also enforced on insert: once the worker's characters pass the budget by
 * {@link #SLACK_DIVISOR 1/32} of it, its least-recently-used text is evicted back to the budget. The slack amortises
 * the eviction's walk over the worker's nodes across the inserts of about a thirty-second of the pool.
 *
 * <p>Thread-safe: the map is concurrent and the tree's eviction re-checks every leaf under its write lock, so two
 * inserts over the slack at once only repeat the walk.
 */
final class TreeBudgets {

    /** An engine-sized budget is enforced on insert once exceeded by budget / this. */
    static final long SLACK_DIVISOR = 32;

    private final long configured;
    private final ConcurrentHashMap<String, Long> engineSized = new ConcurrentHashMap<>();

    /** @param configured {@code max-tree-size}: every worker's budget until its engine's capacity is known */
    TreeBudgets(long configured) {
        this.configured = configured;
    }

    /** The budget the periodic eviction applies to the worker. */
    long of(String workerUrl) {
        return engineSized.getOrDefault(workerUrl, configured);
    }

    void setEngineSized(String workerUrl, long maxChars) {
        if (maxChars < 0) {
            throw new IllegalArgumentException("tenant char budget must be >= 0, was " + maxChars);
        }
        engineSized.put(workerUrl, maxChars);
    }

    void clearEngineSized(String workerUrl) {
        engineSized.remove(workerUrl);
    }

    /**
     * After an insert that left the worker holding {@code held} characters: evicts it back to its engine-sized budget
     * when past the slack. Returns the characters evicted (0 for a configured budget, which only the periodic pass
     * enforces).
     */
    long afterInsert(ApproximateRadixTree tree, String workerUrl, long held) {
        if (engineSized.isEmpty()) {
            return 0;
        }
        Long budget = engineSized.get(workerUrl);
        if (budget == null || held <= budget + budget / SLACK_DIVISOR) {
            return 0;
        }
        return tree.evictTenantTo(workerUrl, budget);
    }
}
