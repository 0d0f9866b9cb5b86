package dev.caravan.processors.kv;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.caravan.policies.LoadBalancingPolicy;
import dev.caravan.policies.TreeBacked;
import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerRegistry;
import dev.caravan.policies.kv.KvEventSink;
import dev.caravan.processors.routing.PolicyRegistry;

/**
 * Corrects cache_aware's approximate trees with what engines report, no tokenizer needed (docs/design/kv-events.md, "The
 * event-calibrated tree"). The trees record what the router <em>sent</em> to each worker and forget by their own LRU
 * budget; the engine's events say what it actually <em>dropped</em>:
 * <ul>
 *   <li>{@code BlockRemoved} of n blocks from worker W → evict about {@code n × blockSize × charsPerToken} of W's
 *       least-recently-used characters ({@link TreeBacked#evictTenantChars}), blockSize being what W's engine reported
 *       ({@link KvCapacities}) or {@code --kv-block-size}. The tree evicts whole edges, often more than asked (a
 *       1,000-character system prompt for one 64-character block), and engines send one event per evicted block, so
 *       the characters owed are kept as a per-worker balance: what an eviction removes beyond the debt is credit
 *       against the next events. Over time the tree loses as many characters as the engine reported;</li>
 *   <li>{@code AllBlocksCleared} or a publisher restart → evict all of W's characters (W stays a tenant, with nothing
 *       cached);</li>
 *   <li>{@link #applyBudgets} ({@code --max-tree-size auto}) → each worker's budget is its engine's KV capacity in tokens
 *       × charsPerToken ({@link TreeBacked#setTenantCharBudget}), enforced by the policy's maintenance pass.</li>
 * </ul>
 * The policy of W is the one its model's pool uses; policies that keep no tree are left alone (capability check, no
 * names). Characters per token is an estimate (4 for English BPE), and the engine caches output blocks the tree never
 * saw, so calibration bounds the tree by the engine's real behaviour rather than reproducing it.
 *
 * <p>Thread-safety: called from workers' event threads (one per worker) and the capacity timer; the trees are
 * thread-safe and the counters are adders.
 */
public final class TreeCalibrator implements KvEventSink {

    private static final Logger LOG = LoggerFactory.getLogger(TreeCalibrator.class);

    private final WorkerRegistry workers;
    private final PolicyRegistry policies;
    private final KvCapacities capacities;
    private final int charsPerToken;
    private final int defaultBlockSize;
    private final Map<String, Balance> balances = new ConcurrentHashMap<>();

    /** One worker's eviction account: characters still owed (negative: credit), and the total evicted. */
    private static final class Balance {
        long owed;
        final LongAdder evicted = new LongAdder();
    }

    /**
     * @param charsPerToken    characters one token stands for in the trees
     * @param defaultBlockSize block size of engines that did not report theirs
     */
    public TreeCalibrator(WorkerRegistry workers, PolicyRegistry policies, KvCapacities capacities, int charsPerToken,
                          int defaultBlockSize) {
        this.workers = workers;
        this.policies = policies;
        this.capacities = capacities;
        this.charsPerToken = charsPerToken;
        this.defaultBlockSize = defaultBlockSize;
    }

    @Override
    public void blocksStored(String workerId, String model, long[] keys) {
        // The tree learns what was stored from the routed prompts themselves.
    }

    @Override
    public void blocksRemoved(String workerId, String model, long[] keys) {
        long chars = (long) keys.length * capacities.blockSize(workerId, defaultBlockSize) * charsPerToken;
        Balance b = balances.computeIfAbsent(workerId, id -> new Balance());
        synchronized (b) {
            b.owed += chars;
            if (b.owed > 0) {
                b.owed -= evict(workerId, b.owed, b);
            }
        }
    }

    /** Any rank's clear empties the worker's tree (the tree does not know ranks: conservative). */
    @Override
    public void rankCleared(String workerId, int rank) {
        Balance b = balances.computeIfAbsent(workerId, id -> new Balance());
        long evicted;
        synchronized (b) {
            b.owed = 0;
            evicted = evict(workerId, Long.MAX_VALUE, b);
        }
        LOG.info("Tree calibration: worker {}'s engine cleared its cache; {} chars dropped from its tree", workerId,
                evicted);
    }

    private long evict(String workerId, long chars, Balance b) {
        Worker w = workers.get(workerId).orElse(null);
        TreeBacked tree = w == null ? null : treeOf(w);
        if (tree == null) {
            return 0;
        }
        long evicted = tree.evictTenantChars(w.url(), chars);
        b.evicted.add(evicted);
        return evicted;
    }

    /**
     * Sets each worker's tree budget from its engine's reported capacity; called after every capacity poll, so
     * policies created later (a model's first worker re-joining) get their budgets too. Workers without a report keep
     * {@code max-tree-size}'s default.
     */
    public void applyBudgets(Map<String, KvCapacity> known) {
        known.forEach((workerId, capacity) -> workers.get(workerId).ifPresent(w -> {
            TreeBacked tree = treeOf(w);
            long budget = capacity.chars(charsPerToken);
            if (tree != null && tree.tenantCharBudget(w.url()) != budget) {
                tree.setTenantCharBudget(w.url(), budget);
                LOG.info("Tree budget of {} set to {} chars ({} KV tokens x {} chars per token)", w.url(), budget,
                        capacity.tokens(), charsPerToken);
            }
        }));
    }

    /** The budget the worker's tree applies, or -1 when its policy keeps no tree. */
    public long budget(Worker worker) {
        TreeBacked tree = treeOf(worker);
        return tree == null ? -1 : tree.tenantCharBudget(worker.url());
    }

    /** Characters evicted from the worker's tree on its engine's events, since it registered. */
    public long evictedChars(String workerId) {
        Balance b = balances.get(workerId);
        return b == null ? 0 : b.evicted.sum();
    }

    /** Forgets a worker that left. */
    public void forget(String workerId) {
        balances.remove(workerId);
    }

    private TreeBacked treeOf(Worker w) {
        LoadBalancingPolicy p = policies.policies().get(w.modelId());
        return p instanceof TreeBacked t ? t : null;
    }
}
