package dev.caravan.policies.kv;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

import dev.caravan.policies.Decision;
import dev.caravan.policies.HeldPrefixes;
import dev.caravan.policies.LoadBalancingPolicy;
import dev.caravan.policies.Maintainable;
import dev.caravan.policies.PrefixHoldings;
import dev.caravan.policies.SelectionContext;
import dev.caravan.policies.TreeBacked;
import dev.caravan.policies.Worker;
import dev.caravan.policies.tree.ApproximateRadixTree;

/**
 * kv_aware that falls back to a tree policy (cache_aware) while its parity self-check is degraded
 * ({@code --kv-parity-fallback}): when the blocks kv_aware predicts are not the ones the engines report storing (a
 * tokenizer or chat-template mismatch), its KV matches are noise and it routes no better than load balancing, while
 * cache_aware's tree, keyed by the request text, still keeps conversations and tenants together.
 *
 * <p>While degraded, one request in {@code probeEvery} is still decided by kv_aware, so its predictions keep being
 * checked and the fallback ends once agreement recovers; the others are decided by the fallback, under this policy's
 * name with the branch {@value #BRANCH_FALLBACK}. The fallback learns only from the requests it decides (its tree
 * starts empty on the first fallback). Everything else (workers joining and leaving, outcomes, maintenance, the tree's
 * budget and gauges) reaches both; what workers hold ({@link #held}) is kv_aware's KV index. Thread-safe as its parts.
 */
public final class ParityFallbackPolicy implements LoadBalancingPolicy, PrefixHoldings, TreeBacked, Maintainable {

    public static final String BRANCH_FALLBACK = "parity_fallback";
    /** One request in this many stays with kv_aware while the fallback is on. */
    public static final int DEFAULT_PROBE_EVERY = 8;

    private final KvAwarePolicy kv;
    private final LoadBalancingPolicy fallback;
    private final TreeBacked tree;
    private final ParityTracker parity;
    private final int probeEvery;
    private final AtomicLong degradedRequests = new AtomicLong();

    /**
     * @param fallback a tree-backed, maintainable policy (cache_aware)
     * @param probeEvery while degraded, every {@code probeEvery}-th request is kv_aware's; &gt;= 1
     */
    public ParityFallbackPolicy(KvAwarePolicy kv, LoadBalancingPolicy fallback, ParityTracker parity, int probeEvery) {
        this.kv = Objects.requireNonNull(kv, "kv");
        this.fallback = Objects.requireNonNull(fallback, "fallback");
        if (!(fallback instanceof TreeBacked t) || !(fallback instanceof Maintainable)) {
            throw new IllegalArgumentException("the fallback must be a tree policy (cache_aware), was "
                    + fallback.name());
        }
        this.tree = t;
        this.parity = Objects.requireNonNull(parity, "parity");
        if (probeEvery < 1) {
            throw new IllegalArgumentException("probeEvery must be >= 1, was " + probeEvery);
        }
        this.probeEvery = probeEvery;
    }

    @Override
    public String name() {
        return kv.name();
    }

    @Override
    public boolean needsRequestText() {
        return true;
    }

    @Override
    public Decision select(List<Worker> candidates, SelectionContext context) {
        if (!parity.degraded() || degradedRequests.incrementAndGet() % probeEvery == 0) {
            return kv.select(candidates, context);
        }
        Decision d = fallback.select(candidates, context);
        return d.isEmpty() ? Decision.none(name(), d.branch())
                : new Decision(d.worker(), name(), BRANCH_FALLBACK, d.dataParallelRank(), d.onRelease());
    }

    @Override
    public HeldPrefixes held(List<Worker> candidates, SelectionContext context) {
        return kv.held(candidates, context);
    }

    @Override
    public void onWorkerAdded(Worker worker) {
        kv.onWorkerAdded(worker);
        fallback.onWorkerAdded(worker);
    }

    @Override
    public void onWorkerRemoved(Worker worker) {
        kv.onWorkerRemoved(worker);
        fallback.onWorkerRemoved(worker);
    }

    @Override
    public void onRequestComplete(Worker worker, boolean success) {
        kv.onRequestComplete(worker, success);
        fallback.onRequestComplete(worker, success);
    }

    @Override
    public void reset() {
        kv.reset();
        fallback.reset();
    }

    @Override
    public Duration maintenanceInterval() {
        return ((Maintainable) fallback).maintenanceInterval();
    }

    @Override
    public void runMaintenance() {
        ((Maintainable) fallback).runMaintenance();
    }

    @Override
    public Map<String, Map<String, Long>> treeChars() {
        return tree.treeChars();
    }

    @Override
    public Optional<ApproximateRadixTree> tree(String model) {
        return tree.tree(model);
    }

    @Override
    public void setTenantCharBudget(String workerUrl, long maxChars) {
        tree.setTenantCharBudget(workerUrl, maxChars);
    }

    @Override
    public void clearTenantCharBudget(String workerUrl) {
        tree.clearTenantCharBudget(workerUrl);
    }

    @Override
    public long tenantCharBudget(String workerUrl) {
        return tree.tenantCharBudget(workerUrl);
    }

    @Override
    public long evictTenantChars(String workerUrl, long chars) {
        return tree.evictTenantChars(workerUrl, chars);
    }
}
