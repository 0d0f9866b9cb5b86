package dev.caravan.policies;

import java.util.Map;
import java.util.Optional;

import dev.caravan.policies.tree.ApproximateRadixTree;

/**
 * A policy that keeps approximate radix trees of what it sent where (cache_aware), one per model, tenant = worker URL.
 * Reached through this interface, never by downcasting:
 *
 * <pre>{@code
 * if (policy instanceof TreeBacked tb) {
 *     tb.treeChars().forEach((model, perWorker) -> perWorker.forEach((url, chars) -> gauge(model, url, chars)));
 *     tb.setTenantCharBudget(worker.url(), capacityTokens * 4);   // KV-event calibration
 *     tb.evictTenantChars(worker.url(), removedBlocks * blockSize * 4);
 * }
 * }</pre>
 */
public interface TreeBacked {

    /**
     * Characters each tenant holds, per tree: model id → worker URL → characters (Unicode code points); the
     * {@code caravan_tree_chars{model,worker}} gauge. A fresh snapshot; safe to call from any thread.
     */
    Map<String, Map<String, Long>> treeChars();

    /** The model's tree (the model as {@link Worker#normalizeModel} spells it), if one exists yet. */
    Optional<ApproximateRadixTree> tree(String model);

    /**
     * Replaces the configured per-tenant budget ({@code max-tree-size}) for one worker, in every tree, sized from the
     * engine's reported KV capacity ({@code max-tree-size auto}). Unlike the configured size, which only the periodic
     * maintenance pass enforces (SGLang's meaning), this budget stands for the engine's LRU pool and is also enforced
     * on insert, once exceeded by a small slack (cache_aware: 1/32 of it).
     *
     * @throws IllegalArgumentException when {@code maxChars} is negative
     */
    void setTenantCharBudget(String workerUrl, long maxChars);

    /** Back to the configured budget for this worker. */
    void clearTenantCharBudget(String workerUrl);

    /** The budget maintenance applies to this worker: its override, else {@code max-tree-size}. */
    long tenantCharBudget(String workerUrl);

    /**
     * Evicts about {@code chars} of this worker's least-recently-used text now, in every tree (e.g. when the engine
     * reports it evicted that much KV cache). Returns the characters removed.
     */
    long evictTenantChars(String workerUrl, long chars);
}
