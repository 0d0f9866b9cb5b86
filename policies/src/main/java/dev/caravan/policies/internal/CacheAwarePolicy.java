package dev.caravan.policies.internal;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import java.util.function.ToIntFunction;
import java.util.random.RandomGenerator;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.caravan.policies.Branches;
import dev.caravan.policies.CacheAwareConfig;
import dev.caravan.policies.Decision;
import dev.caravan.policies.EngineLoad;
import dev.caravan.policies.LoadBalancingPolicy;
import dev.caravan.policies.Maintainable;
import dev.caravan.policies.PolicyEnvironment;
import dev.caravan.policies.PolicyName;
import dev.caravan.policies.SelectionContext;
import dev.caravan.policies.TreeBacked;
import dev.caravan.policies.Worker;
import dev.caravan.policies.fleet.FleetPrefixIndex;
import dev.caravan.policies.fleet.FleetPrefixes;
import dev.caravan.policies.fleet.RoutedPrefix;
import dev.caravan.policies.tree.ApproximateRadixTree;
import dev.caravan.policies.tree.PrefixMatch;
import dev.caravan.policies.tree.SharedMatch;

/**
 * SGLang's {@code cache_aware}: while the fleet is balanced, route a prompt to the worker that holds its longest known
 * prefix; when the fleet is imbalanced, or the match is weak, to the least-loaded worker.
 *
 * <p><b>Approximate trees.</b> One character radix tree per model ({@link ModelKey}, created on first use) records the
 * prompts sent to each worker (tenant = worker URL): routing history only, so no tokenizer and no engine query sit on
 * the request path; lengths are code points. A worker is seeded when added and purged from every tree when removed.
 * Thread-safe: so are the trees, and the rest lives in concurrent maps.
 *
 * <p><b>Imbalance rule.</b> Over the loads of <em>all</em> candidates, healthy or not, the fleet is imbalanced when
 * {@code max - min > balanceAbsThreshold} and {@code max > min * balanceRelThreshold}, both strict. A load is the
 * worker's requests in flight through this gateway, or {@link #effectiveLoad} with {@code balanceEngineLoad}.
 *
 * <p><b>Selection</b> (each decision names its branch, {@link Branches}):
 * <ol>
 *   <li>No healthy candidate: no worker ({@code no_healthy_workers}).</li>
 *   <li>Imbalanced: the least-loaded healthy worker ({@code imbalanced_min_load}). With {@code imbalancePreferCached},
 *       among workers with {@code load <= min + balanceAbsThreshold}, the one holding the longest prefix that would
 *       itself be a hit, ties to the lighter then the earlier ({@code imbalanced_cached}).</li>
 *   <li>Balanced, with {@code hotPrefixReplication}: a prompt that is a hit only through a prefix carrying more than
 *       one engine's share of recent traffic goes to that prefix's holders in turn ({@code hot_prefix},
 *       {@link HotPrefixes}).</li>
 *   <li>Hit: {@code matched / input > cacheThreshold} (strict), or {@code matched >= minPrefixMatchChars}. With
 *       {@code discountSharedPrefix}, both sides first lose the part up to the prompt's shared branch point
 *       ({@link ApproximateRadixTree#sharedPrefixChars}, N = healthy candidates), so a new conversation that matches
 *       only a common preamble is a miss. The matched tenant wins if it is a healthy candidate ({@code cache_hit},
 *       {@code cache_hit_min_prefix}). With {@code prefillBacklogRatio} it yields to the cheapest other worker when
 *       its pending prefills make waiting longer than recomputing ({@code cache_hit_prefill_backlog},
 *       {@link PrefillBacklog}). Before that, with {@code requestShareMargin}, a tenant whose recent requests exceed
 *       the mean by the margin yields to the worker not over its share holding the longest part of the prompt
 *       ({@code cache_hit_over_share}, {@link RequestShares}).</li>
 *   <li>Hit on a tenant that is gone or unhealthy: the tenant is purged from the tree and the first healthy candidate
 *       is used, nothing recorded ({@code stale_tenant}); with {@code staleFallbackMinLoad}, the least-loaded worker,
 *       recorded ({@code stale_tenant_min_load}).</li>
 *   <li>Miss: the least-loaded healthy worker ({@code cache_miss_min_load}; {@code cache_miss_shared_prefix} when only
 *       the discount made it a miss). With {@code oneOffSinkShare}, a miss predicted one-off goes to a sink share of
 *       the workers and any other miss outside it ({@link OneOffSink}, {@link ReusePredictor}).</li>
 *   <li>Every branch but {@code stale_tenant} inserts the prompt under the chosen worker and counts the selection in
 *       its processed total. Least-loaded choices break ties by {@code minLoadTieBreak} ({@link LeastLoaded}).</li>
 * </ol>
 *
 * <p><b>Parameters</b> ({@link CacheAwareConfig}, whose components document each in full):
 * <ul>
 *   <li>{@code cacheThreshold}: match rate in [0,1]; {@code DEFAULT_CACHE_THRESHOLD} 0.3.</li>
 *   <li>{@code balanceAbsThreshold}: requests, {@code DEFAULT_BALANCE_ABS_THRESHOLD} 64; {@code balanceRelThreshold}:
 *       a ratio, {@code DEFAULT_BALANCE_REL_THRESHOLD} 1.5.</li>
 *   <li>{@code evictionInterval}: how often {@link #runMaintenance()} evicts each tenant to its budget;
 *       {@code DEFAULT_EVICTION_INTERVAL} 60 s, zero disables it.</li>
 *   <li>{@code maxTreeSize}: code points per tenant per tree; {@code DEFAULT_MAX_TREE_SIZE} 2^26. A per-worker budget
 *       from the engine's KV capacity ({@code max-tree-size auto}) replaces it and is also enforced on insert
 *       ({@link TreeBudgets}).</li>
 *   <li>{@code minPrefixMatchChars}: code points, 0 = off, {@code DEFAULT_MIN_PREFIX_MATCH_CHARS} 4,096;
 *       {@code discountSharedPrefix}: {@code DEFAULT_DISCOUNT_SHARED_PREFIX} on.</li>
 *   <li>{@code balanceEngineLoad}: off ({@code DEFAULT_BALANCE_ENGINE_LOAD}); trusts an engine load polled at most
 *       {@code engineLoadMaxAge} ago, {@code DEFAULT_ENGINE_LOAD_MAX_AGE} 10 s.</li>
 *   <li>{@code imbalancePreferCached}, {@code staleFallbackMinLoad}, {@code hotPrefixReplication}: off by default.</li>
 *   <li>{@code oneOffSinkShare}: a share of the workers in [0,1), 0 = off ({@code DEFAULT_ONE_OFF_SINK_SHARE}).
 *       {@code prefillBacklogRatio}: 0 = off or at least 1, {@code DEFAULT_PREFILL_BACKLOG_RATIO} 0.</li>
 *   <li>{@code requestShareMargin}: a fraction of the mean, 0 = off, {@code DEFAULT_REQUEST_SHARE_MARGIN} 0.1.</li>
 *   <li>{@code sharedPrefixOwner}: which tenant a shared node reports, {@code DEFAULT_SHARED_PREFIX_OWNER} first.
 *       {@code minLoadTieBreak}: {@code DEFAULT_MIN_LOAD_TIE_BREAK} processed.</li>
 * </ul>
 * {@link CacheAwareConfig#sglang()} is SGLang's behaviour exactly. What each option answers in SGLang's algorithm:
 * docs/design/upstream.md, "SGLang: cache_aware"; where the defaults differ from SGLang's, and why:
 * docs/design/routing-core.md, "Deliberate differences from SGLang".
 *
 * <p><b>Replica sync</b> ({@link PolicyEnvironment#fleet()}; docs/design/replica-sync.md): the prompt is also hashed
 * at geometric boundaries and matched in the fleet prefix index of every replica's decisions; when the fleet's longest
 * usable boundary reaches the local match's, the fleet's owner and length are used ({@code cache_hit_peer} when that
 * made the hit). Every inserting branch records its decision there.
 */
public final class CacheAwarePolicy implements LoadBalancingPolicy, Maintainable, TreeBacked {

    private static final Logger LOG = LoggerFactory.getLogger(CacheAwarePolicy.class);
    private static final String NAME = PolicyName.CACHE_AWARE.wireName();

    private final CacheAwareConfig config;
    private final LongSupplier nanoTime;
    /** {@code --min-load-tie-break footprint}'s last resort. */
    private final RandomGenerator random;
    /** {@link #effectiveLoad}, allocated once for the least-loaded choices. */
    private final ToIntFunction<Worker> loadOf = this::effectiveLoad;
    private final ConcurrentHashMap<String, ApproximateRadixTree> trees = new ConcurrentHashMap<>();
    /** {@code max-tree-size}, or per worker its engine's KV capacity, enforced on insert ({@link TreeBudgets}). */
    private final TreeBudgets budgets;
    /** The fleet's prefix index with replica sync, else null. */
    private final FleetPrefixes fleet;
    /** {@code --one-off-sink-share}'s placement of misses, else null. */
    private final OneOffSink sink;
    /** {@code --hot-prefix-replication}'s hot prefixes and their holders, else null. */
    private final HotPrefixes hot;
    /** {@code --prefill-backlog-ratio}'s pending prefills per worker, else null. */
    private final PrefillBacklog backlog;
    /** {@code --request-share-margin}'s recent requests per worker, else null. */
    private final RequestShares shares;

    /**
     * {@code env} supplies the clock engine-load ages are measured with (the load monitor stamps the same clock) and,
     * with replica sync, the fleet prefix index.
     */
    public CacheAwarePolicy(CacheAwareConfig config, PolicyEnvironment env) {
        this.config = config;
        this.nanoTime = env.nanoTime();
        this.budgets = new TreeBudgets(config.maxTreeSize());
        this.random = env.random();
        this.fleet = env.fleet() == null ? null : env.fleet().prefixes();
        this.sink = config.oneOffSinkShare() > 0
                ? new OneOffSink(config.oneOffSinkShare(), config.balanceRelThreshold()) : null;
        this.hot = config.hotPrefixReplication() ? new HotPrefixes(nanoTime) : null;
        this.backlog = config.prefillBacklogRatio() > 0
                ? new PrefillBacklog(config.prefillBacklogRatio(), nanoTime) : null;
        this.shares = config.requestShareMargin() > 0 ? new RequestShares(config.requestShareMargin(), nanoTime) : null;
    }

    public CacheAwareConfig config() {
        return config;
    }

    @Override
    public Decision select(List<Worker> candidates, SelectionContext context) {
        List<Worker> healthy = HealthyWorkers.of(candidates);
        if (healthy.isEmpty()) {
            return Decision.none(NAME, Branches.NO_HEALTHY_WORKERS);
        }
        String text = context.requestText();
        String model = ModelKey.of(context, healthy);
        ApproximateRadixTree tree = treeFor(model);
        RoutedPrefix routed = fleet == null ? null : fleet.digest(model, text);

        int min = Integer.MAX_VALUE;
        int max = 0;
        for (int i = 0, n = candidates.size(); i < n; i++) {
            int load = effectiveLoad(candidates.get(i));
            min = Math.min(min, load);
            max = Math.max(max, load);
        }
        if (Imbalance.imbalanced(min, max, config.balanceAbsThreshold(), config.balanceRelThreshold())) {
            return imbalanced(healthy, text, tree, min, max, routed);
        }

        // with the discount, the shared branch point comes from the match's own walk: one pass over the prompt
        long sharedLocal = 0;
        PrefixMatch local;
        if (config.discountSharedPrefix()) {
            SharedMatch both = tree.matchWithShared(text, healthy.size());
            local = both.match();
            sharedLocal = both.sharedChars();
        } else {
            local = tree.prefixMatch(text);
        }
        PrefixMatch match = granular(model, routed == null ? local : withFleet(local, routed, candidates));
        if (hot != null) {
            Worker holder = hot.pick(model, tree, text, healthy, loadOf,
                    shared -> qualifies(match, 0) && !qualifies(match, shared));
            if (holder != null) {
                return route(tree, text, holder, Branches.HOT_PREFIX, match, routed);
            }
        }
        // only a match that would hit as a whole can lose by the discount
        long shared = config.discountSharedPrefix() && qualifies(match, 0)
                ? Math.min(match.matchedChars(), sharedLocal) : 0;
        boolean byRate = aboveThreshold(match.matchedChars() - shared, match.inputChars() - shared);
        boolean byLength = !byRate && isLongEnough(match.matchedChars() - shared);
        if ((byRate || byLength) && match.hasTenant()) {
            Worker tenant = ConsistentHashingPolicy.find(candidates, match.tenant());
            if (tenant != null && tenant.isHealthy()) {
                String branch = byRate ? Branches.CACHE_HIT : Branches.CACHE_HIT_MIN_PREFIX;
                if (match != local && !(match.tenant().equals(local.tenant()) && qualifies(local, shared))) {
                    branch = Branches.CACHE_HIT_PEER;
                }
                if (sink != null) {
                    sink.hit(text, tree, healthy.size(), match.matchedChars());
                }
                if (shares != null && shares.over(tenant, healthy)) {
                    Worker other = shares.divert(healthy, tree.matchedCharsByTenant(text));
                    return route(tree, text, other, Branches.CACHE_HIT_OVER_SHARE, match, routed);
                }
                if (backlog != null && backlog.of(tenant.url()) > 0) {
                    Map<String, Long> byTenant = tree.matchedCharsByTenant(text);
                    Worker other = backlog.divert(tenant, match.matchedChars(), healthy, byTenant,
                            match.inputChars(), loadOf);
                    if (other != null) {
                        return route(tree, text, other, Branches.CACHE_HIT_PREFILL_BACKLOG, match, routed,
                                match.inputChars() - byTenant.getOrDefault(other.url(), 0L));
                    }
                }
                return route(tree, text, tenant, branch, match, routed);
            }
            tree.removeTenant(match.tenant());
            if (config.staleFallbackMinLoad()) {
                return route(tree, text, leastLoaded(healthy, tree), Branches.STALE_TENANT_MIN_LOAD, match, routed);
            }
            LOG.debug("cache_aware: tenant {} is stale; purged, falling back to the first healthy worker",
                    match.tenant());
            if (shares != null) {
                shares.record(healthy.get(0).url());
            }
            return Decision.of(healthy.get(0), NAME, Branches.STALE_TENANT);
        }
        String miss = shared > 0 ? Branches.CACHE_MISS_SHARED_PREFIX : Branches.CACHE_MISS_MIN_LOAD;
        OneOffSink.Choice steered = sink == null ? null : sink.miss(healthy, text, tree, match.matchedChars(), loadOf);
        if (steered != null) {
            return route(tree, text, steered.worker(), steered.branch(), match, routed);
        }
        return route(tree, text, leastLoaded(healthy, tree), miss, match, routed);
    }

    /** The least-loaded healthy worker, ties broken by {@code --min-load-tie-break}. */
    private Worker leastLoaded(List<Worker> healthy, ApproximateRadixTree tree) {
        return LeastLoaded.pick(healthy, loadOf, config.minLoadTieBreak(), w -> tree.tenantChars(w.url()), random);
    }

    /**
     * The local match, or the fleet's when its longest usable boundary reaches the longest boundary within the local
     * match (the fleet's owner is the one every replica agrees on). Same owner: the longer of the two lengths.
     */
    private PrefixMatch withFleet(PrefixMatch local, RoutedPrefix routed, List<Worker> candidates) {
        FleetPrefixIndex.Match peer = fleet.longest(routed, url -> {
            Worker w = ConsistentHashingPolicy.find(candidates, url);
            return w != null && w.isHealthy();
        });
        if (peer == null) {
            return local;
        }
        long fleetChars = routed.codePoints()[peer.boundary()];
        int within = routed.boundaryAtMost(local.matchedChars());
        if (within >= 0 && fleetChars < routed.codePoints()[within]) {
            return local;
        }
        long chars = peer.owner().equals(local.tenant()) ? Math.max(fleetChars, local.matchedChars()) : fleetChars;
        return new PrefixMatch(peer.owner(), chars, local.inputChars());
    }

    /** The match cut down to the model's hit granularity: what the engine could serve of it. */
    private PrefixMatch granular(String model, PrefixMatch m) {
        long chars = config.hitGranularity().round(model, m.matchedChars());
        return chars == m.matchedChars() ? m : new PrefixMatch(m.tenant(), chars, m.inputChars());
    }

    /** Whether {@code m} is a hit once its first {@code shared} code points are discounted from both sides. */
    private boolean qualifies(PrefixMatch m, long shared) {
        long own = Math.max(0, m.matchedChars() - shared);
        return m.hasTenant() && (aboveThreshold(own, m.inputChars() - Math.min(shared, m.matchedChars()))
                || isLongEnough(own));
    }

    /** {@code matched / input > cacheThreshold}, strictly, in f32 like SGLang; an empty input never qualifies. */
    private boolean aboveThreshold(long matched, long input) {
        float rate = input == 0 ? 0f : (float) matched / (float) input;
        return rate > (float) config.cacheThreshold();
    }

    private boolean isLongEnough(long matchedChars) {
        return config.minPrefixMatchChars() > 0 && matchedChars >= config.minPrefixMatchChars();
    }

    private Decision imbalanced(List<Worker> healthy, String text, ApproximateRadixTree tree, int min, int max,
            RoutedPrefix routed) {
        Worker least = leastLoaded(healthy, tree);
        if (config.imbalancePreferCached()) {
            Worker cached = mostCachedNearMin(healthy, text, tree, effectiveLoad(least));
            if (cached != null) {
                LOG.debug("cache_aware: imbalanced (min {}, max {}), kept affinity on {}", min, max, cached.url());
                return route(tree, text, cached, Branches.IMBALANCED_CACHED, null, routed);
            }
        }
        LOG.debug("cache_aware: imbalanced (min {}, max {}), least loaded {}", min, max, least.url());
        return route(tree, text, least, Branches.IMBALANCED_MIN_LOAD, null, routed);
    }

    /**
     * {@code imbalancePreferCached}: the window's worker with the longest qualifying prefix, or null; with
     * {@code discountSharedPrefix} the prefix qualifies on what it holds beyond the shared branch point.
     */
    private Worker mostCachedNearMin(List<Worker> healthy, String text, ApproximateRadixTree tree, int minLoad) {
        Map<String, Long> byTenant = tree.matchedCharsByTenant(text);
        long input = text.codePointCount(0, text.length());
        long window = (long) minLoad + config.balanceAbsThreshold();
        Worker best = null;
        long bestChars = 0;
        for (Worker w : healthy) {
            int load = effectiveLoad(w);
            long chars = byTenant.getOrDefault(w.url(), 0L);
            if (load > window || chars == 0) {
                continue;
            }
            if (chars > bestChars || (chars == bestChars && load < effectiveLoad(best))) {
                best = w;
                bestChars = chars;
            }
        }
        if (best == null) {
            return null;
        }
        long shared = config.discountSharedPrefix()
                ? Math.min(bestChars, tree.sharedPrefixChars(text, healthy.size())) : 0;
        return aboveThreshold(bestChars - shared, input - shared) || isLongEnough(bestChars - shared) ? best : null;
    }

    /**
     * The load the guard and the least-loaded choices compare: in-flight requests through this gateway, or with
     * {@code balanceEngineLoad} the larger of that and the engine's own running + waiting count when that poll is fresh
     * ({@link EngineLoad#isFresh}). Stale, unknown or absent engine loads fall back to in-flight, so a worker whose
     * poll fails is neither favoured nor shunned for its last report.
     */
    int effectiveLoad(Worker w) {
        int inFlight = w.load();
        if (!config.balanceEngineLoad()) {
            return inFlight;
        }
        EngineLoad engine = w.engineLoad();
        if (engine == null || !engine.isFresh(nanoTime.getAsLong(), config.engineLoadMaxAge())) {
            return inFlight;
        }
        return Math.max(inFlight, engine.queued());
    }

    /**
     * {@link #route(ApproximateRadixTree, String, Worker, String, PrefixMatch, RoutedPrefix, long)} with the uncached
     * characters known from the match when {@code w} is its tenant, else the whole prompt (an upper bound).
     */
    private Decision route(ApproximateRadixTree tree, String text, Worker w, String branch, PrefixMatch match,
            RoutedPrefix routed) {
        if (backlog == null) {
            return route(tree, text, w, branch, match, routed, 0);
        }
        long held = match != null && w.url().equals(match.tenant()) ? match.matchedChars() : 0;
        return route(tree, text, w, branch, match, routed, inputChars(text, match) - held);
    }

    /**
     * Inserts the prompt under {@code w} and decides for it; with {@code prefillBacklogRatio}, {@code uncached} joins
     * its prefill backlog.
     */
    private Decision route(ApproximateRadixTree tree, String text, Worker w, String branch, PrefixMatch match,
            RoutedPrefix routed, long uncached) {
        budgets.afterInsert(tree, w.url(), tree.insert(text, w.url()));
        if (routed != null) {
            fleet.routed(routed, w.url());
        }
        w.incrementProcessed();
        if (shares != null) {
            shares.record(w.url());
        }
        if (LOG.isDebugEnabled()) {
            LOG.debug("cache_aware: {} -> {} (load {}){}", branch, w.url(), w.load(),
                    match == null ? "" : " matched " + match.matchedChars() + "/" + match.inputChars() + " of "
                            + match.tenant());
        }
        Decision d = Decision.of(w, NAME, branch);
        return backlog == null ? d
                : d.withOnFirstToken(backlog.add(w.url(), inputChars(text, match), Math.max(0, uncached)));
    }

    private static long inputChars(String text, PrefixMatch match) {
        return match != null ? match.inputChars() : text.codePointCount(0, text.length());
    }

    private ApproximateRadixTree treeFor(String model) {
        ApproximateRadixTree t = trees.get(model);
        return t != null ? t : trees.computeIfAbsent(model, m -> new ApproximateRadixTree(config.sharedPrefixOwner()));
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean needsRequestText() {
        return true;
    }

    /** Seeds the worker as a tenant of its model's tree (SGLang inserts "" for it). */
    @Override
    public void onWorkerAdded(Worker worker) {
        treeFor(worker.modelId()).insert("", worker.url());
    }

    /** Purges the worker from every tree (SGLang's {@code remove_worker_by_url}). */
    @Override
    public void onWorkerRemoved(Worker worker) {
        for (ApproximateRadixTree t : trees.values()) {
            t.removeTenant(worker.url());
        }
        if (hot != null) {
            hot.removeWorker(worker.url());
        }
        if (backlog != null) {
            backlog.removeWorker(worker.url());
        }
        if (shares != null) {
            shares.removeWorker(worker.url());
        }
        if (fleet != null) {
            fleet.index().removeOwner(worker.url());
        }
    }

    @Override
    public void reset() {
        trees.clear();
        if (hot != null) {
            hot.clear();
        }
        if (backlog != null) {
            backlog.clear();
        }
        if (shares != null) {
            shares.clear();
        }
    }

    @Override
    public Duration maintenanceInterval() {
        return config.evictionInterval();
    }

    /** Evicts every tree's tenants to their budgets: the override when set, else {@code maxTreeSize}. */
    @Override
    public void runMaintenance() {
        for (Map.Entry<String, ApproximateRadixTree> e : trees.entrySet()) {
            long evicted = e.getValue().evictTenantsBySize(this::tenantCharBudget);
            if (evicted > 0) {
                LOG.debug("cache_aware: evicted {} chars from the '{}' tree", evicted, e.getKey());
            }
        }
        if (fleet != null) {
            // the fleet index has one entry per chunk at most: the tree budget in chunks bounds each worker's entries
            long chunk = fleet.hasher().chunkChars();
            long evicted = fleet.index().evict(url -> tenantCharBudget(url) / chunk);
            if (evicted > 0) {
                LOG.debug("cache_aware: evicted {} fleet prefix entries", evicted);
            }
        }
        if (hot != null) {
            hot.prune();
        }
    }

    @Override
    public Map<String, Map<String, Long>> treeChars() {
        Map<String, Map<String, Long>> out = new LinkedHashMap<>();
        trees.forEach((model, tree) -> out.put(model, tree.tenantCharCounts()));
        return out;
    }

    @Override
    public Optional<ApproximateRadixTree> tree(String model) {
        return Optional.ofNullable(trees.get(Worker.normalizeModel(model)));
    }

    @Override
    public void setTenantCharBudget(String workerUrl, long maxChars) {
        budgets.setEngineSized(workerUrl, maxChars);
    }

    @Override
    public void clearTenantCharBudget(String workerUrl) {
        budgets.clearEngineSized(workerUrl);
    }

    @Override
    public long tenantCharBudget(String workerUrl) {
        return budgets.of(workerUrl);
    }

    @Override
    public long evictTenantChars(String workerUrl, long chars) {
        long evicted = 0;
        for (ApproximateRadixTree t : trees.values()) {
            evicted += t.evictTenantChars(workerUrl, chars);
        }
        return evicted;
    }
}
