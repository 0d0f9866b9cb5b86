package dev.caravan.policies;

import java.time.Duration;
import java.util.Objects;

import dev.caravan.policies.tree.OwnerRule;

/**
 * Configuration of {@code cache_aware}. SGLang's own parameters default to its Python launcher's values
 * ({@code router_args.py}; docs/design/upstream.md, "SGLang: cache_aware"), which the gateway's CLI also uses.
 * Caravan's additions default off, except {@code minPrefixMatchChars}, {@code discountSharedPrefix} and
 * {@code requestShareMargin}, which measurements showed to win or tie on every bench workload
 * (docs/design/routing-core.md, "Deliberate differences from SGLang"); {@link #sglang()} turns those off as well.
 *
 * @param cacheThreshold          a prefix match rate (matched / input code points) strictly above this is a cache hit;
 *                                in [0,1]; default {@value #DEFAULT_CACHE_THRESHOLD}
 * @param balanceAbsThreshold     the imbalance guard fires only when {@code max - min} in-flight load is strictly above
 *                                this (requests); &gt;= 0; default {@value #DEFAULT_BALANCE_ABS_THRESHOLD}
 * @param balanceRelThreshold     ... and {@code max > min * balanceRelThreshold}; finite, &gt;= 0; default
 *                                {@value #DEFAULT_BALANCE_REL_THRESHOLD}
 * @param evictionInterval        how often the gateway runs tree eviction ({@link Maintainable}); {@link Duration#ZERO}
 *                                disables it; default 60 s
 * @param maxTreeSize             characters each tenant (worker) may keep per model tree after eviction; &gt;= 1;
 *                                default {@value #DEFAULT_MAX_TREE_SIZE} (2^26). The option value {@code auto} parses
 *                                to the default: the gateway then replaces it per worker with a budget sized from the
 *                                engine's KV capacity ({@link TreeBacked#setTenantCharBudget}, docs/kv-events.md),
 *                                which is enforced on insert as well (the policy's {@code TreeBudgets})
 * @param minPrefixMatchChars     a match of at least this many code points is a hit even when the rate is at or below
 *                                the threshold, so a shared preamble before a long unique document still routes by
 *                                cache; 0 = off; default {@value #DEFAULT_MIN_PREFIX_MATCH_CHARS}
 * @param imbalancePreferCached   when the guard fires, choose the worker with the longest cached prefix among those
 *                                with {@code load <= min + balanceAbsThreshold} instead of the least loaded; default
 *                                false
 * @param staleFallbackMinLoad    when the matched tenant is gone or unhealthy, fall back to the least loaded worker
 *                                (and record the prompt there) instead of the first healthy one; default false
 * @param balanceEngineLoad       the load the imbalance guard and every least-loaded choice read for a worker is
 *                                {@code max(in-flight, engine running + waiting)} while the engine's polled load
 *                                ({@link Worker#engineLoad()}) is fresh, so a worker whose engine queue is long
 *                                (requests from other gateways, long prefills) is seen as loaded; default false (the
 *                                router's in-flight count only, as SGLang)
 * @param engineLoadMaxAge        how old a polled engine load may be and still count ({@link EngineLoad#isFresh});
 *                                &gt;= 0, {@link Duration#ZERO} never trusts one; default
 *                                {@link #DEFAULT_ENGINE_LOAD_MAX_AGE}. The gateway sets it to twice its
 *                                {@code --load-check-interval}, so one missed or slow poll is tolerated and a worker that
 *                                stops answering drops back to in-flight counting
 * @param sharedPrefixOwner       which worker a match reports when several hold the matched prefix ({@link OwnerRule}):
 *                                {@code first} (default, SGLang's since its PRs 16097/16099: the worker that first sent
 *                                it, while the tree still holds it there) or {@code latest} (the last worker it was
 *                                sent to)
 * @param discountSharedPrefix    the part of a match up to the prompt's shared branch point
 *                                ({@link dev.caravan.policies.tree.ApproximateRadixTree#sharedPrefixChars}: a preamble
 *                                that requests branch off from and that carries at least 1/N of the model's traffic, N
 *                                the healthy candidates) is worth nothing: the hit test weighs only the match beyond
 *                                it, {@code (matched - shared) / (input - shared) > cacheThreshold} (and
 *                                {@code minPrefixMatchChars} and {@code imbalancePreferCached} on {@code matched -
 *                                shared}), so a new conversation whose only match is the common preamble is a miss and
 *                                goes to the least-loaded worker, while a conversation's later turns keep their worker;
 *                                default {@value #DEFAULT_DISCOUNT_SHARED_PREFIX} (SGLang: the whole match counts)
 * @param minLoadTieBreak         how the least-loaded choices break ties ({@link MinLoadTieBreak}): {@code processed}
 *                                (default, SGLang smg #1714) or {@code footprint} (smallest tree, then random)
 * @param oneOffSinkShare         cache-pollution-aware placement: a cache miss predicted one-off (its context, the
 *                                shared prefix it branches off, saw fewer than half of its fresh prompts continued)
 *                                goes to the least-loaded worker of the <em>sink</em>, this share of the workers (first
 *                                by URL), and any other miss to the least loaded outside it, while the choice's load is
 *                                at most {@code max(min + 1, min * balanceRelThreshold)}; in [0,1), 0 = off (default,
 *                                SGLang); docs/design/pollution.md
 * @param hotPrefixReplication    (Preble-style) a prefix whose recent load is above one engine's fair share is held by
 *                                the fewest k engines that keep each within 1.15 of the mean, k following its load up
 *                                at once and down after a quiet spell, and the requests only that prefix makes a hit go
 *                                to the holders in turn ({@code hot_prefix}); default false (SGLang: one owner)
 * @param prefillBacklogRatio     per worker, the uncached prompt characters of the requests sent to it that have no
 *                                first token yet are its prefill backlog; a cache hit leaves its holder for the
 *                                cheapest other worker when the holder's backlog plus the prompt's uncached part there
 *                                is more than this ratio times the other's ({@code cache_hit_prefill_backlog}); 0 = off
 *                                (SGLang), else &gt;= 1; default {@value #DEFAULT_PREFILL_BACKLOG_RATIO}
 * @param requestShareMargin      a hit does not go to a worker whose recent requests (decayed, half-life 30 s) exceed
 *                                the healthy workers' mean by more than this fraction of the mean and by more than 16
 *                                requests, but to the worker not over its share that holds the longest part of the
 *                                prompt, then the one with the fewest recent requests ({@code cache_hit_over_share});
 *                                finite, &gt;= 0, 0 = off (SGLang); default {@value #DEFAULT_REQUEST_SHARE_MARGIN}
 * @param hitGranularity          per model, the characters the engine's hit comes in ({@link HitGranularity}): the
 *                                tree's match is cut down to a multiple of it before the hit test; default none
 */
public record CacheAwareConfig(double cacheThreshold, int balanceAbsThreshold, double balanceRelThreshold,
                               Duration evictionInterval, long maxTreeSize, int minPrefixMatchChars,
                               boolean imbalancePreferCached, boolean staleFallbackMinLoad, boolean balanceEngineLoad,
                               Duration engineLoadMaxAge, OwnerRule sharedPrefixOwner, boolean discountSharedPrefix,
                               MinLoadTieBreak minLoadTieBreak, double oneOffSinkShare,
                               boolean hotPrefixReplication, double prefillBacklogRatio,
                               double requestShareMargin, HitGranularity hitGranularity) implements PolicyConfig {

    public static final double DEFAULT_CACHE_THRESHOLD = 0.3;
    public static final int DEFAULT_BALANCE_ABS_THRESHOLD = 64;
    public static final double DEFAULT_BALANCE_REL_THRESHOLD = 1.5;
    public static final Duration DEFAULT_EVICTION_INTERVAL = Duration.ofSeconds(60);
    public static final long DEFAULT_MAX_TREE_SIZE = 1L << 26;
    /**
     * A 4,096-character match (about 1,000 tokens) is a hit whatever the rate, so a tenant's preamble before a long
     * unique document keeps its engine; where matches are short or rates high nothing changes. Chosen from the bench
     * workloads (docs/design/routing-core.md, "Why some defaults differ"). SGLang has no such rule
     * ({@link #sglang()}: 0).
     */
    public static final int DEFAULT_MIN_PREFIX_MATCH_CHARS = 4096;
    public static final boolean DEFAULT_IMBALANCE_PREFER_CACHED = false;
    public static final boolean DEFAULT_STALE_FALLBACK_MIN_LOAD = false;
    public static final boolean DEFAULT_BALANCE_ENGINE_LOAD = false;
    /** Twice the gateway's default 5 s load poll. */
    public static final Duration DEFAULT_ENGINE_LOAD_MAX_AGE = Duration.ofSeconds(10);
    /** SGLang's rule since its PRs 16097/16099: a shared node keeps reporting its first owner while that owner is on it. */
    public static final OwnerRule DEFAULT_SHARED_PREFIX_OWNER = OwnerRule.FIRST;
    /**
     * On: conversations that share a preamble, and a hot tenant's prompt, spread over the workers, and nothing else
     * changes (docs/design/routing-core.md, "Why some defaults differ"). SGLang counts the whole match however many
     * conversations share it ({@link #sglang()}).
     */
    public static final boolean DEFAULT_DISCOUNT_SHARED_PREFIX = true;
    /** SGLang's later gateway (smg #1714): fewer processed selections, then the earlier worker. */
    public static final MinLoadTieBreak DEFAULT_MIN_LOAD_TIE_BREAK = MinLoadTieBreak.PROCESSED;
    /** Off: every miss goes to the least-loaded worker, as in SGLang. */
    public static final double DEFAULT_ONE_OFF_SINK_SHARE = 0;
    /** SGLang: a prefix has one owner however much traffic it carries. */
    public static final boolean DEFAULT_HOT_PREFIX_REPLICATION = false;
    /**
     * Off, as in SGLang: a ratio trades prefix hits for TTFT and none wins on every workload (docs/design/routing-core.md,
     * "Why some defaults differ"), so it is a choice for latency-bound deployments, not a default.
     */
    public static final double DEFAULT_PREFILL_BACKLOG_RATIO = 0;
    /**
     * 10 %: on b2b with about 16 tenants per engine the busiest engine's share drops from 1.12–1.36 of the mean to at
     * most 1.15 at the same hit rate, and nothing changes where shares are already even (docs/design/routing-core.md,
     * "Why some defaults differ"). SGLang has no such rule ({@link #sglang()}: 0).
     */
    public static final double DEFAULT_REQUEST_SHARE_MARGIN = 0.15;

    public CacheAwareConfig {
        Checks.inUnitInterval(cacheThreshold, "cacheThreshold", CACHE_THRESHOLD);
        Checks.atLeast(balanceAbsThreshold, 0, "balanceAbsThreshold", BALANCE_ABS_THRESHOLD);
        Checks.nonNegativeFinite(balanceRelThreshold, "balanceRelThreshold", BALANCE_REL_THRESHOLD);
        Checks.nonNegative(evictionInterval, "evictionInterval", EVICTION_INTERVAL);
        Checks.atLeast(maxTreeSize, 1, "maxTreeSize", MAX_TREE_SIZE);
        Checks.atLeast(minPrefixMatchChars, 0, "minPrefixMatchChars", MIN_PREFIX_MATCH_CHARS);
        Checks.nonNegative(engineLoadMaxAge, "engineLoadMaxAge", ENGINE_LOAD_MAX_AGE);
        Objects.requireNonNull(sharedPrefixOwner, "sharedPrefixOwner");
        Objects.requireNonNull(minLoadTieBreak, "minLoadTieBreak");
        Checks.inUnitInterval(oneOffSinkShare, "oneOffSinkShare", ONE_OFF_SINK_SHARE);
        if (oneOffSinkShare >= 1) {
            throw new IllegalArgumentException("oneOffSinkShare (" + ONE_OFF_SINK_SHARE + ") must be below 1, was "
                    + oneOffSinkShare);
        }
        Checks.nonNegativeFinite(prefillBacklogRatio, "prefillBacklogRatio", PREFILL_BACKLOG_RATIO);
        if (prefillBacklogRatio > 0 && prefillBacklogRatio < 1) {
            throw new IllegalArgumentException("prefillBacklogRatio (" + PREFILL_BACKLOG_RATIO + ") must be 0 (off) or "
                    + "at least 1, was " + prefillBacklogRatio);
        }
        Checks.nonNegativeFinite(requestShareMargin, "requestShareMargin", REQUEST_SHARE_MARGIN);
        hitGranularity = hitGranularity == null ? HitGranularity.NONE : hitGranularity;
    }

    /** A configuration that rounds no match ({@link HitGranularity#NONE}). */
    public CacheAwareConfig(double cacheThreshold, int balanceAbsThreshold, double balanceRelThreshold,
                            Duration evictionInterval, long maxTreeSize, int minPrefixMatchChars,
                            boolean imbalancePreferCached, boolean staleFallbackMinLoad, boolean balanceEngineLoad,
                            Duration engineLoadMaxAge, OwnerRule sharedPrefixOwner, boolean discountSharedPrefix,
                            MinLoadTieBreak minLoadTieBreak, double oneOffSinkShare, boolean hotPrefixReplication,
                            double prefillBacklogRatio, double requestShareMargin) {
        this(cacheThreshold, balanceAbsThreshold, balanceRelThreshold, evictionInterval, maxTreeSize,
                minPrefixMatchChars, imbalancePreferCached, staleFallbackMinLoad, balanceEngineLoad, engineLoadMaxAge,
                sharedPrefixOwner, discountSharedPrefix, minLoadTieBreak, oneOffSinkShare, hotPrefixReplication,
                prefillBacklogRatio, requestShareMargin, HitGranularity.NONE);
    }

    /** The configuration without the request-share guard. */
    public CacheAwareConfig(double cacheThreshold, int balanceAbsThreshold, double balanceRelThreshold,
                            Duration evictionInterval, long maxTreeSize, int minPrefixMatchChars,
                            boolean imbalancePreferCached, boolean staleFallbackMinLoad, boolean balanceEngineLoad,
                            Duration engineLoadMaxAge, OwnerRule sharedPrefixOwner, boolean discountSharedPrefix,
                            MinLoadTieBreak minLoadTieBreak, double oneOffSinkShare, boolean hotPrefixReplication,
                            double prefillBacklogRatio) {
        this(cacheThreshold, balanceAbsThreshold, balanceRelThreshold, evictionInterval, maxTreeSize,
                minPrefixMatchChars, imbalancePreferCached, staleFallbackMinLoad, balanceEngineLoad, engineLoadMaxAge,
                sharedPrefixOwner, discountSharedPrefix, minLoadTieBreak, oneOffSinkShare, hotPrefixReplication,
                prefillBacklogRatio, 0);
    }

    /** The configuration without the prefill-backlog rule and the request-share guard. */
    public CacheAwareConfig(double cacheThreshold, int balanceAbsThreshold, double balanceRelThreshold,
                            Duration evictionInterval, long maxTreeSize, int minPrefixMatchChars,
                            boolean imbalancePreferCached, boolean staleFallbackMinLoad, boolean balanceEngineLoad,
                            Duration engineLoadMaxAge, OwnerRule sharedPrefixOwner, boolean discountSharedPrefix,
                            MinLoadTieBreak minLoadTieBreak, double oneOffSinkShare, boolean hotPrefixReplication) {
        this(cacheThreshold, balanceAbsThreshold, balanceRelThreshold, evictionInterval, maxTreeSize,
                minPrefixMatchChars, imbalancePreferCached, staleFallbackMinLoad, balanceEngineLoad, engineLoadMaxAge,
                sharedPrefixOwner, discountSharedPrefix, minLoadTieBreak, oneOffSinkShare, hotPrefixReplication, 0);
    }

    /** The configuration without cache-pollution-aware placement and hot-prefix replication. */
    public CacheAwareConfig(double cacheThreshold, int balanceAbsThreshold, double balanceRelThreshold,
                            Duration evictionInterval, long maxTreeSize, int minPrefixMatchChars,
                            boolean imbalancePreferCached, boolean staleFallbackMinLoad, boolean balanceEngineLoad,
                            Duration engineLoadMaxAge, OwnerRule sharedPrefixOwner, boolean discountSharedPrefix,
                            MinLoadTieBreak minLoadTieBreak) {
        this(cacheThreshold, balanceAbsThreshold, balanceRelThreshold, evictionInterval, maxTreeSize,
                minPrefixMatchChars, imbalancePreferCached, staleFallbackMinLoad, balanceEngineLoad, engineLoadMaxAge,
                sharedPrefixOwner, discountSharedPrefix, minLoadTieBreak, DEFAULT_ONE_OFF_SINK_SHARE,
                DEFAULT_HOT_PREFIX_REPLICATION);
    }

    /**
     * The configuration without the shared-prefix discount, the pollution sink and hot-prefix replication: shared
     * prefixes count and ties go by processed count (SGLang).
     */
    public CacheAwareConfig(double cacheThreshold, int balanceAbsThreshold, double balanceRelThreshold,
                            Duration evictionInterval, long maxTreeSize, int minPrefixMatchChars,
                            boolean imbalancePreferCached, boolean staleFallbackMinLoad, boolean balanceEngineLoad,
                            Duration engineLoadMaxAge, OwnerRule sharedPrefixOwner) {
        this(cacheThreshold, balanceAbsThreshold, balanceRelThreshold, evictionInterval, maxTreeSize,
                minPrefixMatchChars, imbalancePreferCached, staleFallbackMinLoad, balanceEngineLoad, engineLoadMaxAge,
                sharedPrefixOwner, false, MinLoadTieBreak.PROCESSED, DEFAULT_ONE_OFF_SINK_SHARE,
                DEFAULT_HOT_PREFIX_REPLICATION);
    }

    /** The configuration without engine loads ({@code balanceEngineLoad} off, default age) and SGLang's owner rule. */
    public CacheAwareConfig(double cacheThreshold, int balanceAbsThreshold, double balanceRelThreshold,
                            Duration evictionInterval, long maxTreeSize, int minPrefixMatchChars,
                            boolean imbalancePreferCached, boolean staleFallbackMinLoad) {
        this(cacheThreshold, balanceAbsThreshold, balanceRelThreshold, evictionInterval, maxTreeSize,
                minPrefixMatchChars, imbalancePreferCached, staleFallbackMinLoad, DEFAULT_BALANCE_ENGINE_LOAD,
                DEFAULT_ENGINE_LOAD_MAX_AGE, DEFAULT_SHARED_PREFIX_OWNER);
    }

    public static CacheAwareConfig defaults() {
        return new CacheAwareConfig(DEFAULT_CACHE_THRESHOLD, DEFAULT_BALANCE_ABS_THRESHOLD,
                DEFAULT_BALANCE_REL_THRESHOLD, DEFAULT_EVICTION_INTERVAL, DEFAULT_MAX_TREE_SIZE,
                DEFAULT_MIN_PREFIX_MATCH_CHARS, DEFAULT_IMBALANCE_PREFER_CACHED, DEFAULT_STALE_FALLBACK_MIN_LOAD,
                DEFAULT_BALANCE_ENGINE_LOAD, DEFAULT_ENGINE_LOAD_MAX_AGE, DEFAULT_SHARED_PREFIX_OWNER,
                DEFAULT_DISCOUNT_SHARED_PREFIX, DEFAULT_MIN_LOAD_TIE_BREAK, DEFAULT_ONE_OFF_SINK_SHARE,
                DEFAULT_HOT_PREFIX_REPLICATION, DEFAULT_PREFILL_BACKLOG_RATIO, DEFAULT_REQUEST_SHARE_MARGIN);
    }

    /** SGLang's cache_aware exactly: Caravan's defaults with the whole match counting ({@code --sglang-defaults}). */
    public static CacheAwareConfig sglang() {
        return defaults().withDiscountSharedPrefix(false).withMinLoadTieBreak(MinLoadTieBreak.PROCESSED)
                .withMinPrefixMatchChars(0).withPrefillBacklogRatio(0).withRequestShareMargin(0);
    }

    static CacheAwareConfig from(PolicyOptions o) {
        return new CacheAwareConfig(
                o.getDouble(CACHE_THRESHOLD, DEFAULT_CACHE_THRESHOLD),
                o.getInt(BALANCE_ABS_THRESHOLD, DEFAULT_BALANCE_ABS_THRESHOLD),
                o.getDouble(BALANCE_REL_THRESHOLD, DEFAULT_BALANCE_REL_THRESHOLD),
                o.getSeconds(EVICTION_INTERVAL, DEFAULT_EVICTION_INTERVAL),
                o.getLongOrAuto(MAX_TREE_SIZE, DEFAULT_MAX_TREE_SIZE),
                o.getInt(MIN_PREFIX_MATCH_CHARS, DEFAULT_MIN_PREFIX_MATCH_CHARS),
                o.getBoolean(IMBALANCE_PREFER_CACHED, DEFAULT_IMBALANCE_PREFER_CACHED),
                o.getBoolean(STALE_FALLBACK_MIN_LOAD, DEFAULT_STALE_FALLBACK_MIN_LOAD),
                o.getBoolean(BALANCE_ENGINE_LOAD, DEFAULT_BALANCE_ENGINE_LOAD),
                o.getSeconds(ENGINE_LOAD_MAX_AGE, DEFAULT_ENGINE_LOAD_MAX_AGE),
                o.getOwnerRule(SHARED_PREFIX_OWNER, DEFAULT_SHARED_PREFIX_OWNER),
                o.getBoolean(DISCOUNT_SHARED_PREFIX, DEFAULT_DISCOUNT_SHARED_PREFIX),
                o.getTieBreak(MIN_LOAD_TIE_BREAK, DEFAULT_MIN_LOAD_TIE_BREAK),
                o.getDouble(ONE_OFF_SINK_SHARE, DEFAULT_ONE_OFF_SINK_SHARE),
                o.getBoolean(HOT_PREFIX_REPLICATION, DEFAULT_HOT_PREFIX_REPLICATION),
                o.getDouble(PREFILL_BACKLOG_RATIO, DEFAULT_PREFILL_BACKLOG_RATIO),
                o.getDouble(REQUEST_SHARE_MARGIN, DEFAULT_REQUEST_SHARE_MARGIN),
                HitGranularity.parse(o.getString(HIT_GRANULARITY_CHARS, "")));
    }

    public CacheAwareConfig withCacheThreshold(double v) {
        return new CacheAwareConfig(v, balanceAbsThreshold, balanceRelThreshold, evictionInterval, maxTreeSize,
                minPrefixMatchChars, imbalancePreferCached, staleFallbackMinLoad, balanceEngineLoad, engineLoadMaxAge,
                sharedPrefixOwner, discountSharedPrefix, minLoadTieBreak, oneOffSinkShare, hotPrefixReplication,
                prefillBacklogRatio, requestShareMargin, hitGranularity);
    }

    public CacheAwareConfig withBalance(int abs, double rel) {
        return new CacheAwareConfig(cacheThreshold, abs, rel, evictionInterval, maxTreeSize, minPrefixMatchChars,
                imbalancePreferCached, staleFallbackMinLoad, balanceEngineLoad, engineLoadMaxAge,
                sharedPrefixOwner, discountSharedPrefix, minLoadTieBreak, oneOffSinkShare, hotPrefixReplication,
                prefillBacklogRatio, requestShareMargin, hitGranularity);
    }

    public CacheAwareConfig withMaxTreeSize(long v) {
        return new CacheAwareConfig(cacheThreshold, balanceAbsThreshold, balanceRelThreshold, evictionInterval, v,
                minPrefixMatchChars, imbalancePreferCached, staleFallbackMinLoad, balanceEngineLoad, engineLoadMaxAge,
                sharedPrefixOwner, discountSharedPrefix, minLoadTieBreak, oneOffSinkShare, hotPrefixReplication,
                prefillBacklogRatio, requestShareMargin, hitGranularity);
    }

    public CacheAwareConfig withMinPrefixMatchChars(int v) {
        return new CacheAwareConfig(cacheThreshold, balanceAbsThreshold, balanceRelThreshold, evictionInterval,
                maxTreeSize, v, imbalancePreferCached, staleFallbackMinLoad, balanceEngineLoad, engineLoadMaxAge,
                sharedPrefixOwner, discountSharedPrefix, minLoadTieBreak, oneOffSinkShare, hotPrefixReplication,
                prefillBacklogRatio, requestShareMargin, hitGranularity);
    }

    public CacheAwareConfig withImbalancePreferCached(boolean v) {
        return new CacheAwareConfig(cacheThreshold, balanceAbsThreshold, balanceRelThreshold, evictionInterval,
                maxTreeSize, minPrefixMatchChars, v, staleFallbackMinLoad, balanceEngineLoad, engineLoadMaxAge,
                sharedPrefixOwner, discountSharedPrefix, minLoadTieBreak, oneOffSinkShare, hotPrefixReplication,
                prefillBacklogRatio, requestShareMargin, hitGranularity);
    }

    public CacheAwareConfig withStaleFallbackMinLoad(boolean v) {
        return new CacheAwareConfig(cacheThreshold, balanceAbsThreshold, balanceRelThreshold, evictionInterval,
                maxTreeSize, minPrefixMatchChars, imbalancePreferCached, v, balanceEngineLoad, engineLoadMaxAge,
                sharedPrefixOwner, discountSharedPrefix, minLoadTieBreak, oneOffSinkShare, hotPrefixReplication,
                prefillBacklogRatio, requestShareMargin, hitGranularity);
    }

    /** {@code balanceEngineLoad} on or off, trusting engine loads polled at most {@code maxAge} ago. */
    public CacheAwareConfig withBalanceEngineLoad(boolean v, Duration maxAge) {
        return new CacheAwareConfig(cacheThreshold, balanceAbsThreshold, balanceRelThreshold, evictionInterval,
                maxTreeSize, minPrefixMatchChars, imbalancePreferCached, staleFallbackMinLoad, v, maxAge,
                sharedPrefixOwner, discountSharedPrefix, minLoadTieBreak, oneOffSinkShare, hotPrefixReplication,
                prefillBacklogRatio, requestShareMargin, hitGranularity);
    }

    /** Which tenant a match reports for a shared prefix (see {@link OwnerRule}). */
    public CacheAwareConfig withSharedPrefixOwner(OwnerRule v) {
        return new CacheAwareConfig(cacheThreshold, balanceAbsThreshold, balanceRelThreshold, evictionInterval,
                maxTreeSize, minPrefixMatchChars, imbalancePreferCached, staleFallbackMinLoad, balanceEngineLoad,
                engineLoadMaxAge, v, discountSharedPrefix, minLoadTieBreak, oneOffSinkShare, hotPrefixReplication,
                prefillBacklogRatio, requestShareMargin, hitGranularity);
    }

    /** The shared-prefix discount on or off (see the record's description). */
    public CacheAwareConfig withDiscountSharedPrefix(boolean v) {
        return new CacheAwareConfig(cacheThreshold, balanceAbsThreshold, balanceRelThreshold, evictionInterval,
                maxTreeSize, minPrefixMatchChars, imbalancePreferCached, staleFallbackMinLoad, balanceEngineLoad,
                engineLoadMaxAge, sharedPrefixOwner, v, minLoadTieBreak, oneOffSinkShare, hotPrefixReplication,
                prefillBacklogRatio, requestShareMargin, hitGranularity);
    }

    /** How the least-loaded choices break ties ({@link MinLoadTieBreak}). */
    public CacheAwareConfig withMinLoadTieBreak(MinLoadTieBreak v) {
        return new CacheAwareConfig(cacheThreshold, balanceAbsThreshold, balanceRelThreshold, evictionInterval,
                maxTreeSize, minPrefixMatchChars, imbalancePreferCached, staleFallbackMinLoad, balanceEngineLoad,
                engineLoadMaxAge, sharedPrefixOwner, discountSharedPrefix, v, oneOffSinkShare, hotPrefixReplication,
                prefillBacklogRatio, requestShareMargin, hitGranularity);
    }

    /** Cache-pollution-aware placement: the sink's share of the workers, 0 = off (see the record's description). */
    public CacheAwareConfig withOneOffSinkShare(double v) {
        return new CacheAwareConfig(cacheThreshold, balanceAbsThreshold, balanceRelThreshold, evictionInterval,
                maxTreeSize, minPrefixMatchChars, imbalancePreferCached, staleFallbackMinLoad, balanceEngineLoad,
                engineLoadMaxAge, sharedPrefixOwner, discountSharedPrefix, minLoadTieBreak, v, hotPrefixReplication,
                prefillBacklogRatio, requestShareMargin, hitGranularity);
    }

    /** Hot-prefix replication on or off (see the record's description). */
    public CacheAwareConfig withHotPrefixReplication(boolean v) {
        return new CacheAwareConfig(cacheThreshold, balanceAbsThreshold, balanceRelThreshold, evictionInterval,
                maxTreeSize, minPrefixMatchChars, imbalancePreferCached, staleFallbackMinLoad, balanceEngineLoad,
                engineLoadMaxAge, sharedPrefixOwner, discountSharedPrefix, minLoadTieBreak, oneOffSinkShare, v,
                prefillBacklogRatio, requestShareMargin, hitGranularity);
    }

    /** The prefill-backlog rule's ratio, 0 = off (see the record's description). */
    public CacheAwareConfig withPrefillBacklogRatio(double v) {
        return new CacheAwareConfig(cacheThreshold, balanceAbsThreshold, balanceRelThreshold, evictionInterval,
                maxTreeSize, minPrefixMatchChars, imbalancePreferCached, staleFallbackMinLoad, balanceEngineLoad,
                engineLoadMaxAge, sharedPrefixOwner, discountSharedPrefix, minLoadTieBreak, oneOffSinkShare,
                hotPrefixReplication, v, requestShareMargin, hitGranularity);
    }

    /** Per model, the characters the engine's hit comes in (see the record's description). */
    public CacheAwareConfig withHitGranularity(HitGranularity v) {
        return new CacheAwareConfig(cacheThreshold, balanceAbsThreshold, balanceRelThreshold, evictionInterval,
                maxTreeSize, minPrefixMatchChars, imbalancePreferCached, staleFallbackMinLoad, balanceEngineLoad,
                engineLoadMaxAge, sharedPrefixOwner, discountSharedPrefix, minLoadTieBreak, oneOffSinkShare,
                hotPrefixReplication, prefillBacklogRatio, requestShareMargin, v);
    }

    /** The request-share guard's margin, 0 = off (see the record's description). */
    public CacheAwareConfig withRequestShareMargin(double v) {
        return new CacheAwareConfig(cacheThreshold, balanceAbsThreshold, balanceRelThreshold, evictionInterval,
                maxTreeSize, minPrefixMatchChars, imbalancePreferCached, staleFallbackMinLoad, balanceEngineLoad,
                engineLoadMaxAge, sharedPrefixOwner, discountSharedPrefix, minLoadTieBreak, oneOffSinkShare,
                hotPrefixReplication, prefillBacklogRatio, v, hitGranularity);
    }

    @Override
    public <R> R accept(Visitor<R> visitor) {
        return visitor.visit(this);
    }

    @Override
    public String policyName() {
        return PolicyName.CACHE_AWARE.wireName();
    }
}
