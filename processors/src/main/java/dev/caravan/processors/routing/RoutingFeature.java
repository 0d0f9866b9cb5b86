package dev.caravan.processors.routing;

import static dev.caravan.processors.config.FlagType.BOOLEAN;
import static dev.caravan.processors.config.FlagType.DOUBLE;
import static dev.caravan.processors.config.FlagType.INT;
import static dev.caravan.processors.config.FlagType.LONG;
import static dev.caravan.processors.config.FlagType.STRING;

import java.util.Arrays;
import java.util.List;

import dev.caravan.policies.BoundedConsistentHashingConfig;
import dev.caravan.policies.BucketConfig;
import dev.caravan.policies.CacheAwareConfig;
import dev.caravan.policies.ManualConfig;
import dev.caravan.policies.MinLoadTieBreak;
import dev.caravan.policies.PolicyConfig;
import dev.caravan.policies.PrefixHashConfig;
import dev.caravan.policies.tree.OwnerRule;
import dev.caravan.processors.config.CaravanFlag;
import dev.caravan.processors.config.Choices;
import dev.caravan.processors.config.FlagRows;
import dev.caravan.processors.config.Sections;
import dev.caravan.processors.feature.Feature;
import dev.caravan.processors.feature.Wiring;

/**
 * Worker selection: the policy options (caravan.policy.*) handed to the policy library, and the {@code selectWorker}
 * step (ingress.camel.yaml) on the regular pool's policies ({@link Wiring#POLICY_REGISTRY}, built by the assembler
 * before any feature wires), which tells every decision to the shared {@link DecisionObservers}. Shares the
 * {@link PolicyPools} with the regular pool in them.
 */
public final class RoutingFeature implements Feature {

    // ---- bean names (ingress.camel.yaml) ----------------------------------------------------------------------------

    public static final String SELECT_WORKER = "selectWorker";

    private static final FlagRows ROWS = new FlagRows();

    /** {@code --max-tree-size auto}: tree budgets sized per worker from its engine's KV capacity. */
    public static final String AUTO = "auto";

    public static final CaravanFlag CACHE_THRESHOLD = ROWS.option(PolicyConfig.CACHE_THRESHOLD, DOUBLE, Sections.POLICY)
            .defaultValue(CacheAwareConfig.DEFAULT_CACHE_THRESHOLD).checkedBy(FlagRows.BY_POLICY)
            .describe("cache_aware: prefix match rate (0..1) above which a request goes to the worker holding the "
                    + "prefix.");
    public static final CaravanFlag BALANCE_ABS_THRESHOLD = ROWS.option(PolicyConfig.BALANCE_ABS_THRESHOLD,
            INT, Sections.POLICY)
            .defaultValue(CacheAwareConfig.DEFAULT_BALANCE_ABS_THRESHOLD).checkedBy(FlagRows.BY_POLICY)
            .describe("cache_aware, bucket: the imbalance guard needs max-min in-flight load above this many "
                    + "requests.");
    public static final CaravanFlag BALANCE_REL_THRESHOLD = ROWS.option(PolicyConfig.BALANCE_REL_THRESHOLD,
            DOUBLE, Sections.POLICY)
            .defaultValue(CacheAwareConfig.DEFAULT_BALANCE_REL_THRESHOLD).checkedBy(FlagRows.BY_POLICY)
            .describe("cache_aware, bucket: ... and max above min times this ratio.");
    public static final CaravanFlag EVICTION_INTERVAL = ROWS.option(PolicyConfig.EVICTION_INTERVAL,
            LONG, Sections.POLICY)
            .alias("--eviction-interval-secs")
            .defaultValue(CacheAwareConfig.DEFAULT_EVICTION_INTERVAL.toSeconds()).checkedBy(FlagRows.BY_POLICY)
            .describe("cache_aware: seconds between tree evictions (0 disables); manual: TTL sweep interval.");
    public static final CaravanFlag MAX_TREE_SIZE = ROWS.option(PolicyConfig.MAX_TREE_SIZE, LONG, Sections.POLICY)
            .defaultValue(CacheAwareConfig.DEFAULT_MAX_TREE_SIZE)
            .special(AUTO, "per worker from its engine's KV capacity").checkedBy(FlagRows.BY_POLICY)
            .describe("cache_aware: characters each worker may keep in a model's tree after eviction; 'auto': its "
                    + "engine's KV capacity in tokens times --kv-chars-per-token (docs/kv-events.md), also enforced on "
                    + "insert once passed by 1/32, as the engine's pool is.");
    public static final CaravanFlag MIN_PREFIX_MATCH_CHARS = ROWS.option(PolicyConfig.MIN_PREFIX_MATCH_CHARS,
            INT, Sections.POLICY)
            .defaultValue(CacheAwareConfig.DEFAULT_MIN_PREFIX_MATCH_CHARS).checkedBy(FlagRows.BY_POLICY)
            .sglangDefault(0, "SGLang's hit test is the match rate alone, so a tenant's preamble before a long unique "
                    + "document (RAG) is a miss and is scattered over every engine: prefix hit 0.357 against 0.928 "
                    + "with a 4,096-character match counting as a hit, and 0.159 against 0.178 on the Mooncake replay; "
                    + "the same elsewhere (design/routing-core.md, why some defaults differ)")
            .describe("cache_aware (Caravan): a match of at least this many characters is a hit whatever the rate; 0 "
                    + "= off.");
    public static final CaravanFlag IMBALANCE_PREFER_CACHED =
            ROWS.option(PolicyConfig.IMBALANCE_PREFER_CACHED, BOOLEAN, Sections.POLICY)
            .defaultValue(CacheAwareConfig.DEFAULT_IMBALANCE_PREFER_CACHED)
            .describe("cache_aware (Caravan): when the guard fires, prefer the longest cached prefix among "
                    + "near-least-loaded workers.");
    public static final CaravanFlag STALE_FALLBACK_MIN_LOAD =
            ROWS.option(PolicyConfig.STALE_FALLBACK_MIN_LOAD, BOOLEAN, Sections.POLICY)
            .defaultValue(CacheAwareConfig.DEFAULT_STALE_FALLBACK_MIN_LOAD)
            .describe("cache_aware (Caravan): when the matched worker is gone, fall back to the least loaded one.");
    public static final CaravanFlag BALANCE_ENGINE_LOAD = ROWS.option(PolicyConfig.BALANCE_ENGINE_LOAD,
            BOOLEAN, Sections.POLICY)
            .defaultValue(CacheAwareConfig.DEFAULT_BALANCE_ENGINE_LOAD)
            .describe("cache_aware (Caravan): the imbalance guard and least-loaded choices count a worker's load as "
                    + "max(in-flight, engine running + waiting) while its polled engine load is under two "
                    + "--load-check-interval old.");
    public static final CaravanFlag SHARED_PREFIX_OWNER = ROWS.option(PolicyConfig.SHARED_PREFIX_OWNER,
            STRING, Sections.POLICY)
            .defaultValue(CacheAwareConfig.DEFAULT_SHARED_PREFIX_OWNER.wireName())
            .oneOf(Choices.of(Arrays.stream(OwnerRule.values()).map(OwnerRule::wireName).toList()))
            .describe("cache_aware: the worker a prefix held by several reports: first (SGLang: the one that first "
                    + "received it, while the tree holds it there) or latest (the last one it was sent to).");
    public static final CaravanFlag DISCOUNT_SHARED_PREFIX = ROWS.option(PolicyConfig.DISCOUNT_SHARED_PREFIX,
            BOOLEAN, Sections.POLICY)
            .defaultValue(CacheAwareConfig.DEFAULT_DISCOUNT_SHARED_PREFIX)
            .sglangDefault(false, "SGLang counts a preamble every conversation shares as a hit, so new conversations "
                    + "herd onto one engine at low load (share 4.00 of 4 engines) and a tenant with 40 % of the "
                    + "traffic piles onto one (share 3.25, hit 0.829 vs 0.862 with the discount); elsewhere the "
                    + "decisions are the same (design/routing-core.md, why some defaults differ)")
            .describe("cache_aware (Caravan): a preamble requests branch off from that carries at least 1/N of the "
                    + "traffic (N healthy workers) makes no hit: only the match beyond it counts, so new "
                    + "conversations spread while later turns keep their worker.");
    public static final CaravanFlag MIN_LOAD_TIE_BREAK = ROWS.option(PolicyConfig.MIN_LOAD_TIE_BREAK,
            STRING, Sections.POLICY)
            .defaultValue(CacheAwareConfig.DEFAULT_MIN_LOAD_TIE_BREAK.wireName())
            .oneOf(Choices.of(Arrays.stream(MinLoadTieBreak.values()).map(MinLoadTieBreak::wireName).toList()))
            .describe("cache_aware: how least-loaded choices break ties: processed (SGLang: fewer selections, then "
                    + "list order) or footprint (smallest tree, then random).");
    public static final CaravanFlag ONE_OFF_SINK_SHARE = ROWS.option(PolicyConfig.ONE_OFF_SINK_SHARE,
            DOUBLE, Sections.POLICY)
            .defaultValue(CacheAwareConfig.DEFAULT_ONE_OFF_SINK_SHARE)
            .describe("cache_aware (Caravan): cache-pollution-aware placement; a miss whose context (the shared "
                    + "prefix it branches off) saw fewer than half of its new prompts continued goes to this share of "
                    + "the workers, other misses to the rest; in [0,1), 0 = off.");
    public static final CaravanFlag HOT_PREFIX_REPLICATION = ROWS.option(PolicyConfig.HOT_PREFIX_REPLICATION,
            BOOLEAN, Sections.POLICY)
            .defaultValue(CacheAwareConfig.DEFAULT_HOT_PREFIX_REPLICATION)
            .describe("cache_aware (Caravan): a prefix with more than 1/N of the recent traffic is held by the fewest "
                    + "k engines that keep each within 1.15 of the mean (k rises at once, falls after 30 s lower) and "
                    + "the requests only it makes a hit take turns on them.");
    public static final CaravanFlag PREFILL_BACKLOG_RATIO = ROWS.option(PolicyConfig.PREFILL_BACKLOG_RATIO,
            DOUBLE, Sections.POLICY)
            .defaultValue(CacheAwareConfig.DEFAULT_PREFILL_BACKLOG_RATIO).checkedBy(FlagRows.BY_POLICY)
            .describe("cache_aware (Caravan): a hit leaves its holder for the cheapest other worker when the holder's "
                    + "pending prefills (uncached prompt characters sent without a first token yet, less the progress "
                    + "at its measured speed) plus this prompt's uncached part exceed this ratio times the other's and "
                    + "the largest recent prompt; 0 = off, else >= 1.");
    public static final CaravanFlag HIT_GRANULARITY_CHARS = ROWS.option(PolicyConfig.HIT_GRANULARITY_CHARS, STRING,
            Sections.POLICY)
            .checkedBy(FlagRows.BY_POLICY)
            .describe("cache_aware: the characters an engine's prefix-cache hit comes in, per model: CHARS or "
                    + "MODEL=CHARS entries separated by ';' (no MODEL= for every other model); the tree's match is "
                    + "cut down to a multiple before the hit test (a hybrid model whose engine keeps Mamba state per "
                    + "528-token block: 528 x the characters per token). Default: no rounding.");
    public static final CaravanFlag REQUEST_SHARE_MARGIN = ROWS.option(PolicyConfig.REQUEST_SHARE_MARGIN,
            DOUBLE, Sections.POLICY)
            .defaultValue(CacheAwareConfig.DEFAULT_REQUEST_SHARE_MARGIN).checkedBy(FlagRows.BY_POLICY)
            .sglangDefault(0.0, "SGLang places a new prefix by the in-flight load of that instant and keeps it there, "
                    + "so on a fleet whose engines serve a few dozen tenants each the busiest engine's share of the "
                    + "requests is whatever the placement drew (WHATIF); the margin moves the excess at the hits "
                    + "(design/routing-core.md, why some defaults differ)")
            .describe("cache_aware (Caravan): a hit does not go to a worker whose recent requests (half-life 30 s) "
                    + "exceed the mean by more than this fraction and by more than 16, but to the worker not over its "
                    + "share holding the longest part of the prompt; 0 = off.");
    public static final CaravanFlag BUCKET_ADJUST_INTERVAL = ROWS.option(PolicyConfig.BUCKET_ADJUST_INTERVAL,
            LONG, Sections.POLICY)
            .alias("--bucket-adjust-interval-secs")
            .defaultValue(BucketConfig.DEFAULT_BUCKET_ADJUST_INTERVAL.toSeconds()).checkedBy(FlagRows.BY_POLICY)
            .describe("bucket: seconds between bucket boundary adjustments.");
    public static final CaravanFlag ASSIGNMENT_MODE = ROWS.option(PolicyConfig.ASSIGNMENT_MODE, STRING, Sections.POLICY)
            .defaultValue(ManualConfig.DEFAULT_ASSIGNMENT_MODE.wireName())
            .oneOf(Choices.of(Arrays.stream(ManualConfig.AssignmentMode.values())
                    .map(ManualConfig.AssignmentMode::wireName).toList()))
            .sglangDefault(ManualConfig.AssignmentMode.RANDOM.wireName(), "SGLang draws a new key's worker at random, "
                    + "so keys land unevenly (max/mean share 1.17 against 1.06 on b2b) and the share differs between "
                    + "runs and between gateway replicas; min_group gives every worker the same number of keys.")
            .differs("default min_group, not random (--sglang-defaults restores random); min_group counts the keys "
                    + "remembered with a worker, SGLang's the distinct keys with requests in flight on it")
            .describe("manual: how a new routing key picks its worker.");
    public static final CaravanFlag MAX_IDLE_SECS = ROWS.option(PolicyConfig.MAX_IDLE_SECS, LONG, Sections.POLICY)
            .defaultValue(ManualConfig.DEFAULT_MAX_IDLE.toSeconds()).checkedBy(FlagRows.BY_POLICY)
            .describe("manual: seconds after which an idle routing key is forgotten.");
    public static final CaravanFlag PREFIX_TOKEN_COUNT = ROWS.option(PolicyConfig.PREFIX_TOKEN_COUNT,
            INT, Sections.POLICY)
            .defaultValue(PrefixHashConfig.DEFAULT_PREFIX_TOKEN_COUNT).checkedBy(FlagRows.BY_POLICY)
            .describe("prefix_hash: leading tokens hashed to pick the worker.");
    public static final CaravanFlag LOAD_FACTOR = ROWS.option(PolicyConfig.LOAD_FACTOR, DOUBLE, Sections.POLICY)
            .alias("--prefix-hash-load-factor")
            .defaultValue(PrefixHashConfig.DEFAULT_LOAD_FACTOR).checkedBy(FlagRows.BY_POLICY)
            .describe("prefix_hash: a worker above this factor times the mean load is skipped.");
    public static final CaravanFlag MAX_LOAD_SKEW = ROWS.option(PolicyConfig.MAX_LOAD_SKEW, DOUBLE, Sections.POLICY)
            .defaultValue(BoundedConsistentHashingConfig.DEFAULT_MAX_LOAD_SKEW).checkedBy(FlagRows.BY_POLICY)
            .describe("bounded_consistent_hashing: an X-SMG-Routing-Key whose worker is above this factor times the "
                    + "mean load spills to the next ring worker within it.");
    public static final CaravanFlag MIN_LOAD_GAP = ROWS.option(PolicyConfig.MIN_LOAD_GAP, INT, Sections.POLICY)
            .defaultValue(BoundedConsistentHashingConfig.DEFAULT_MIN_LOAD_GAP).checkedBy(FlagRows.BY_POLICY)
            .describe("bounded_consistent_hashing: ... and only when its load exceeds the least loaded worker's by "
                    + "more than this many requests.");

    @Override
    public List<CaravanFlag> flags() {
        return ROWS.all();
    }

    @Override
    public void wire(Wiring w) {
        PolicyRegistry policies = w.get(Wiring.POLICY_REGISTRY, PolicyRegistry.class);
        w.bind(SELECT_WORKER, new SelectWorkerProcessor(policies, w.shared(DecisionObservers.class)));
        PolicyPools pools = new PolicyPools();
        pools.maintain(policies);
        pools.forgetOnFlush(policies);
        w.share(PolicyPools.class, pools);
    }
}
