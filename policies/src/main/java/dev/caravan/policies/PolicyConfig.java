package dev.caravan.policies;

import java.util.Map;

/**
 * The configuration of one routing policy: one record per SGLang policy, each with its defaults as {@code DEFAULT_*}
 * constants and validation in its compact constructor. {@link PolicyFactory#create(PolicyConfig, PolicyEnvironment)}
 * dispatches over this sealed type through {@link Visitor} (Java 17 has no pattern {@code switch}): every record's
 * {@link #accept} calls the visitor method for its own type, so adding a record means adding a {@code Visitor} method,
 * and the factory, which implements {@code Visitor}, does not compile until it handles the new policy.
 *
 * <pre>{@code
 * PolicyConfig cfg = PolicyConfig.fromOptions("cache_aware", Map.of("cache-threshold", "0.5"));
 * LoadBalancingPolicy policy = PolicyFactory.create(cfg, PolicyEnvironment.system());
 * }</pre>
 */
public sealed interface PolicyConfig permits RandomConfig, RoundRobinConfig, PowerOfTwoConfig, CacheAwareConfig,
        BucketConfig, ManualConfig, ConsistentHashingConfig, PrefixHashConfig, BoundedConsistentHashingConfig,
        KvAwareConfig {

    /** Option key {@code cache-threshold}: minimum prefix match rate for a cache hit (cache_aware). */
    String CACHE_THRESHOLD = "cache-threshold";
    /** Option key {@code balance-abs-threshold}: absolute load gap of the imbalance guard (cache_aware, bucket). */
    String BALANCE_ABS_THRESHOLD = "balance-abs-threshold";
    /** Option key {@code balance-rel-threshold}: load ratio of the imbalance guard (cache_aware, bucket). */
    String BALANCE_REL_THRESHOLD = "balance-rel-threshold";
    /** Option key {@code eviction-interval}, in seconds (cache_aware tree eviction, manual TTL sweep). */
    String EVICTION_INTERVAL = "eviction-interval";
    /** Option key {@code max-tree-size}: characters per tenant (worker) kept in a cache_aware tree. */
    String MAX_TREE_SIZE = "max-tree-size";
    /** Option key {@code bucket-adjust-interval}, in seconds (bucket boundary re-balancing). */
    String BUCKET_ADJUST_INTERVAL = "bucket-adjust-interval";
    /** Option key {@code assignment-mode}: {@code random|min_load|min_group} (manual). */
    String ASSIGNMENT_MODE = "assignment-mode";
    /** Option key {@code max-idle-secs}: idle time after which a manual routing key is forgotten. */
    String MAX_IDLE_SECS = "max-idle-secs";
    /** Option key {@code prefix-token-count}: tokens hashed by prefix_hash. */
    String PREFIX_TOKEN_COUNT = "prefix-token-count";
    /** Option key {@code load-factor}: prefix_hash's overload factor over the mean load. */
    String LOAD_FACTOR = "load-factor";
    /** Option key {@code max-load-skew}: bounded_consistent_hashing's load bound as a multiple of the mean load. */
    String MAX_LOAD_SKEW = "max-load-skew";
    /** Option key {@code min-load-gap}: bounded_consistent_hashing's minimum gap to the least-loaded worker to spill. */
    String MIN_LOAD_GAP = "min-load-gap";
    /** Option key {@code min-prefix-match-chars} (Caravan improvement a): absolute matched prefix that counts as a hit. */
    String MIN_PREFIX_MATCH_CHARS = "min-prefix-match-chars";
    /** Option key {@code imbalance-prefer-cached} (Caravan improvement b). */
    String IMBALANCE_PREFER_CACHED = "imbalance-prefer-cached";
    /** Option key {@code stale-fallback-min-load} (Caravan improvement c). */
    String STALE_FALLBACK_MIN_LOAD = "stale-fallback-min-load";
    /** Option key {@code balance-engine-load} (Caravan improvement d): the guard also counts the engine's queue. */
    String BALANCE_ENGINE_LOAD = "balance-engine-load";
    /**
     * Option key {@code engine-load-max-age}, in seconds: how old a polled engine load may be and still count. Not a
     * flag of its own: the gateway derives it from {@code --load-check-interval}.
     */
    String ENGINE_LOAD_MAX_AGE = "engine-load-max-age";
    /** Option key {@code shared-prefix-owner}: {@code first|latest}, the tenant a shared tree node reports (cache_aware). */
    String SHARED_PREFIX_OWNER = "shared-prefix-owner";
    /** Option key {@code discount-shared-prefix} (cache_aware): a preamble much traffic branches off makes no hit. */
    String DISCOUNT_SHARED_PREFIX = "discount-shared-prefix";
    /** Option key {@code one-off-sink-share} (cache_aware): share of workers that take misses predicted one-off. */
    String ONE_OFF_SINK_SHARE = "one-off-sink-share";
    /** Option key {@code min-load-tie-break}: {@code processed|footprint}, cache_aware's choice among least loaded. */
    String MIN_LOAD_TIE_BREAK = "min-load-tie-break";
    /** Option key {@code hot-prefix-replication} (cache_aware): a hot prefix is held by k engines its requests share. */
    String HOT_PREFIX_REPLICATION = "hot-prefix-replication";
    /** Option key {@code prefill-backlog-ratio} (cache_aware): leave a hit's holder whose pending prefills cost more. */
    String PREFILL_BACKLOG_RATIO = "prefill-backlog-ratio";
    /** Option key {@code request-share-margin} (cache_aware): no hit on a worker over its recent request share. */
    String REQUEST_SHARE_MARGIN = "request-share-margin";
    String HIT_GRANULARITY_CHARS = "hit-granularity-chars";
    String KV_STATE_AFFINITY = "kv-state-affinity";

    /** Option key {@code kv-tokenizer} (kv_aware): {@code pseudo} or the path of a HuggingFace tokenizer.json. */
    String KV_TOKENIZER = "kv-tokenizer";
    /** Option key {@code kv-chars-per-token} (kv_aware's pseudo-tokenizer; also the tree calibration's estimate). */
    String KV_CHARS_PER_TOKEN = "kv-chars-per-token";
    /** Option key {@code kv-block-size}: the engines' KV block size in tokens (kv_aware). */
    String KV_BLOCK_SIZE = "kv-block-size";
    /** Option key {@code kv-hash-seed}: accepted for old command lines; kv_aware does not reproduce engine hashes. */
    String KV_HASH_SEED = "kv-hash-seed";
    /** Option key {@code kv-overlap-weight}: weight of uncached prefill blocks in kv_aware's cost. */
    String KV_OVERLAP_WEIGHT = "kv-overlap-weight";
    /** Option key {@code kv-decode-load-source}: {@code router|engine} (kv_aware). */
    String KV_DECODE_LOAD_SOURCE = "kv-decode-load-source";
    /** Option key {@code kv-cpu-weight}: what a block held in host memory saves, relative to a GPU block (kv_aware). */
    String KV_CPU_WEIGHT = "kv-cpu-weight";
    /** Option key {@code kv-disk-weight}: what a block held on storage saves, relative to a GPU block (kv_aware). */
    String KV_DISK_WEIGHT = "kv-disk-weight";
    /** Option key {@code kv-router-temperature}: 0 = lowest cost wins; &gt; 0 = softmax sampling (kv_aware, Dynamo's). */
    String KV_ROUTER_TEMPERATURE = "kv-router-temperature";
    /** Option key {@code kv-discount-shared-prefix} (kv_aware): a prefix much traffic branches off saves nothing. */
    String KV_DISCOUNT_SHARED_PREFIX = "kv-discount-shared-prefix";

    /** The canonical SGLang name of the policy this configures, e.g. {@code cache_aware}. */
    String policyName();

    /** Double dispatch to the visitor method for this record's type. */
    <R> R accept(Visitor<R> visitor);

    /** One method per policy config; implementing it is how a switch over the sealed type stays exhaustive. */
    interface Visitor<R> {
        R visit(RandomConfig config);

        R visit(RoundRobinConfig config);

        R visit(PowerOfTwoConfig config);

        R visit(CacheAwareConfig config);

        R visit(BucketConfig config);

        R visit(ManualConfig config);

        R visit(ConsistentHashingConfig config);

        R visit(PrefixHashConfig config);

        R visit(BoundedConsistentHashingConfig config);

        R visit(KvAwareConfig config);
    }

    /**
     * Builds a config from a policy name and string options keyed by SGLang's CLI flag names without dashes (see the
     * constants above). The name is resolved case-insensitively with SGLang's aliases. A missing option takes its
     * default; keys the chosen policy does not use are ignored.
     *
     * @throws IllegalArgumentException for an unknown name (the message lists the valid ones) or an option that does not
     *                                  parse or is out of range (the message names the key and the value)
     */
    static PolicyConfig fromOptions(String name, Map<String, String> options) {
        PolicyOptions o = new PolicyOptions(options);
        return switch (PolicyName.resolve(name)) {
            case RANDOM -> new RandomConfig();
            case ROUND_ROBIN -> new RoundRobinConfig();
            case POWER_OF_TWO -> new PowerOfTwoConfig();
            case CACHE_AWARE -> CacheAwareConfig.from(o);
            case BUCKET -> BucketConfig.from(o);
            case MANUAL -> ManualConfig.from(o);
            case CONSISTENT_HASHING -> new ConsistentHashingConfig();
            case PREFIX_HASH -> PrefixHashConfig.from(o);
            case BOUNDED_CONSISTENT_HASHING -> BoundedConsistentHashingConfig.from(o);
            case KV_AWARE -> KvAwareConfig.from(o);
        };
    }
}
