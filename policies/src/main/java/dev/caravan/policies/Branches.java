package dev.caravan.policies;

/**
 * Every branch name a policy reports in {@link Decision#branch()}, the {@code branch} label of
 * {@code caravan_policy_decisions_total} and the second half of {@code X-Caravan-Decision}. Names follow SGLang's
 * per-policy metrics where SGLang has them; docs/policies.md lists which policy reports which.
 */
public final class Branches {

    private Branches() {
    }

    /** No candidate is healthy (every policy). */
    public static final String NO_HEALTHY_WORKERS = "no_healthy_workers";

    /** random: uniform choice. */
    public static final String UNIFORM = "uniform";
    /** round_robin: the next worker in the cycle. */
    public static final String NEXT_IN_CYCLE = "next_in_cycle";

    /** power_of_two: only one healthy worker. */
    public static final String SINGLE_WORKER = "single_worker";
    /** power_of_two: both samples had engine-reported token loads, compared. */
    public static final String ENGINE_TOKEN_LOAD = "engine_token_load";
    /** power_of_two: a sample lacked token data, so both were compared by in-flight request count. */
    public static final String REQUEST_COUNT_FALLBACK = "request_count_fallback";

    /** cache_aware: match rate above the threshold and the tenant is healthy. */
    public static final String CACHE_HIT = "cache_hit";
    /**
     * cache_aware with replica sync: a hit the fleet prefix index decided (another replica's decision, or an owner
     * all replicas agree on where the local tree named another or too little).
     */
    public static final String CACHE_HIT_PEER = "cache_hit_peer";
    /**
     * cache_aware with {@code --min-prefix-match-chars}: rate at or below the threshold but the matched prefix is long
     * enough.
     */
    public static final String CACHE_HIT_MIN_PREFIX = "cache_hit_min_prefix";
    /**
     * cache_aware with {@code --discount-shared-prefix}: the whole match would have been a hit, but beyond the shared
     * preamble too little matched; least-loaded healthy worker.
     */
    public static final String CACHE_MISS_SHARED_PREFIX = "cache_miss_shared_prefix";
    /** cache_aware with {@code --one-off-sink-share}: a miss predicted one-off, least-loaded worker of the sink. */
    public static final String CACHE_MISS_ONE_OFF = "cache_miss_one_off";
    /** cache_aware with {@code --one-off-sink-share}: a miss not predicted one-off, least loaded outside the sink. */
    public static final String CACHE_MISS_REUSABLE = "cache_miss_reusable";
    /**
     * cache_aware with {@code --hot-prefix-replication}: only a hot prefix made the match a hit; the next of that
     * prefix's k holders, in turn.
     */
    public static final String HOT_PREFIX = "hot_prefix";
    /**
     * cache_aware with {@code --prefill-backlog-ratio}: a hit, but the holder's pending prefills plus this prompt's
     * uncached part cost more than the ratio times another worker's; that cheapest other worker.
     */
    public static final String CACHE_HIT_PREFILL_BACKLOG = "cache_hit_prefill_backlog";
    /**
     * cache_aware with {@code --request-share-margin}: a hit, but its holder's recent requests exceed the mean by the
     * margin; the worker not over its share holding the longest part of the prompt, then the fewest recent requests.
     */
    public static final String CACHE_HIT_OVER_SHARE = "cache_hit_over_share";
    /** cache_aware: low match rate, least-loaded healthy worker (latest SGLang's miss branch). */
    public static final String CACHE_MISS_MIN_LOAD = "cache_miss_min_load";
    /** cache_aware: the imbalance guard fired, least-loaded healthy worker. */
    public static final String IMBALANCED_MIN_LOAD = "imbalanced_min_load";
    /** cache_aware with {@code --imbalance-prefer-cached}: the guard fired; most-cached worker within min + abs. */
    public static final String IMBALANCED_CACHED = "imbalanced_cached";
    /** cache_aware: the matched tenant is gone or unhealthy; purged, first healthy worker. */
    public static final String STALE_TENANT = "stale_tenant";
    /** cache_aware with {@code --stale-fallback-min-load}: stale tenant purged, least-loaded healthy worker. */
    public static final String STALE_TENANT_MIN_LOAD = "stale_tenant_min_load";

    /** bucket: the worker whose length range holds the prompt. */
    public static final String BUCKET_BOUNDARY = "bucket_boundary";
    /** bucket: windowed characters imbalanced, worker with the fewest. */
    public static final String BUCKET_IMBALANCED = "bucket_imbalanced";

    /** manual: no routing key, new choice by assignment mode. */
    public static final String NO_ROUTING_ID = "no_routing_id";
    /** manual: unknown routing key, assigned and remembered. */
    public static final String VACANT = "vacant";
    /** manual: known key, one of its remembered workers is healthy. */
    public static final String OCCUPIED_HIT = "occupied_hit";
    /** manual: known key, none of its workers is usable; re-assigned. */
    public static final String OCCUPIED_MISS = "occupied_miss";

    /** consistent_hashing, bounded_consistent_hashing: {@code X-SMG-Target-Worker} names a healthy candidate index. */
    public static final String TARGET_WORKER_HIT = "target_worker_hit";
    /**
     * consistent_hashing, bounded_consistent_hashing: {@code X-SMG-Target-Worker} is out of range, unparsable or
     * unhealthy (no worker).
     */
    public static final String TARGET_WORKER_MISS = "target_worker_miss";
    /** consistent_hashing: ring lookup by explicit or implicit routing key. */
    public static final String ROUTING_KEY_HIT = "routing_key_hit";
    /** consistent_hashing (both) / bucket: no key or no usable boundary, random healthy worker. */
    public static final String RANDOM_FALLBACK = "random_fallback";

    /** bounded_consistent_hashing: ring pick by {@code X-SMG-Routing-Key}, within the load bound. */
    public static final String EXPLICIT_ROUTING_KEY_HIT = "explicit_routing_key_hit";
    /** bounded_consistent_hashing: the key's ring pick was overloaded; the next ring worker within the bound. */
    public static final String EXPLICIT_ROUTING_KEY_SPILLOVER = "explicit_routing_key_spillover";
    /** bounded_consistent_hashing: the ring pick was overloaded but no worker is within the bound; kept the pick. */
    public static final String EXPLICIT_ROUTING_KEY_NO_ELIGIBLE_CANDIDATE = "explicit_routing_key_no_eligible_candidate";
    /** bounded_consistent_hashing: ring pick by {@code authorization}/{@code x-forwarded-for}/{@code cookie}; never spills. */
    public static final String IMPLICIT_ROUTING_KEY_HIT = "implicit_routing_key_hit";

    /** prefix_hash: the request carries no token ids. */
    public static final String NO_TOKENS = "no_tokens";
    /** prefix_hash: the ring's worker is not overloaded. */
    public static final String RING_HIT = "ring_hit";
    /** prefix_hash: no ring worker could be found; least-loaded healthy worker (SGLang's no-ring fallback). */
    public static final String FALLBACK_LEAST_LOAD = "fallback_least_load";
    /** prefix_hash: the ring's worker is overloaded; least-loaded acceptable worker (or the ring's if none). */
    public static final String LOAD_BALANCE_WALK = "load_balance_walk";
}
