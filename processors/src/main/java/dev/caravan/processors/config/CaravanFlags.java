package dev.caravan.processors.config;

import static dev.caravan.processors.config.FlagType.BOOLEAN;
import static dev.caravan.processors.config.FlagType.DOUBLE;
import static dev.caravan.processors.config.FlagType.GROUPS;
import static dev.caravan.processors.config.FlagType.INT;
import static dev.caravan.processors.config.FlagType.LIST;
import static dev.caravan.processors.config.FlagType.LONG;
import static dev.caravan.processors.config.FlagType.STRING;
import static dev.caravan.processors.config.FlagType.SWITCH;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

import dev.caravan.components.podwatch.PodWatchConfiguration;
import dev.caravan.policies.BoundedConsistentHashingConfig;
import dev.caravan.policies.BucketConfig;
import dev.caravan.policies.CacheAwareConfig;
import dev.caravan.policies.KvAwareConfig;
import dev.caravan.policies.ManualConfig;
import dev.caravan.policies.MinLoadTieBreak;
import dev.caravan.policies.PolicyConfig;
import dev.caravan.policies.PolicyName;
import dev.caravan.policies.PrefixHashConfig;
import dev.caravan.policies.tree.OwnerRule;
import dev.caravan.processors.admission.AdmissionConfig;
import dev.caravan.processors.flow.TenantDirectory;
import dev.caravan.processors.health.EventLoopsHealthCheck;
import dev.caravan.processors.health.HealthConfig;
import dev.caravan.tokens.HfTokenizer;
import dev.caravan.processors.kv.KvSettings;
import dev.caravan.processors.metrics.CheckMetricsAccessProcessor;
import dev.caravan.processors.pd.PdConfig;
import dev.caravan.processors.pd.PdMode;
import dev.caravan.processors.quality.DecisionQualityConfig;
import dev.caravan.processors.reliability.BreakerConfig;
import dev.caravan.processors.reliability.RetryConfig;
import dev.caravan.processors.tokens.TokensConfig;

/**
 * The configuration table: every command-line flag of {@code ./caravan run}, the {@code caravan.*} property it sets,
 * and all there is to know about its value. Flags are SGLang's {@code sglang_router.launch_router} names where SGLang
 * has one, so an SGLang command line works verbatim; Caravan-only settings follow the same style.
 *
 * <p><b>Adding a setting is one row plus its use.</b> The row declares the flag, the key, the type, the section, the
 * default (a named constant of the code that uses it), the rule ({@code range}, {@code min}, {@code oneOf},
 * {@code special}, {@code pattern}) and one sentence of meaning:
 * <pre>{@code
 * public static final CaravanFlag QUEUE_SIZE = row("--queue-size", "caravan.admission.queue-size", INT, ADMISSION)
 *         .defaultValue(AdmissionConfig.DEFAULT_QUEUE_SIZE).min(0)
 *         .describe("Requests that may wait (FIFO) for a slot; beyond it 429. 0 = no queue.");
 * }</pre>
 * and the code that needs it reads it where its feature's config is built (a {@code *Beans} class in the gateway):
 * <pre>{@code
 * new AdmissionConfig(..., config.getInt(CaravanFlags.QUEUE_SIZE), ...)
 * }</pre>
 * Parsing ({@link ArgsParser}), environment variables, validation (one pass over the rows in {@link GatewayConfig},
 * with messages naming the flag, the rule and the value), {@code --help}, {@code docs/configuration.md} and
 * {@code config/application.properties} follow from the row; {@code ConfigurationDocTest} fails until the generated
 * files are regenerated ({@code mvn -pl processors test -Dtest=ConfigurationDocTest -Dcaravan.docs.write=true}). Rows
 * keep their declaration order in the docs. Nothing else validates or re-maps a setting; a feature config record may
 * still check its own invariants (and cross-setting rules such as "max backoff >= initial backoff").
 *
 * <p>Policy options ({@code caravan.policy.*}) are handed to {@code PolicyConfig.fromOptions}: the policy library's
 * records check their ranges, and their rows say so ({@link #BY_POLICY}) rather than state a second rule. Their
 * defaults and allowed values come from the same records, so the two cannot disagree.
 *
 * <p>Room to grow: an alias ({@code --router-port}) is one more {@link CaravanFlag.Builder} method and record component,
 * matched in {@link CaravanFlag#answersTo}; an "accepted and ignored with a warning" status is likewise one component,
 * read where {@link GatewayConfig} checks the rows. The rows that use them change, no other.
 *
 * <p>This file is the table and runs long on purpose: one row per setting, nothing else.
 */
public final class CaravanFlags {

    private static final List<CaravanFlag> ROWS = new ArrayList<>();

    static final String SERVER = "Server";
    static final String WORKERS = "Workers";
    static final String POLICY = "Routing policy";
    static final String UPSTREAM = "Upstream (data plane)";
    static final String CONTROL = "Control plane";
    static final String DISCOVERY = "Kubernetes service discovery";
    static final String HEALTH = "Health checks";
    static final String BREAKER = "Circuit breakers";
    static final String RETRY = "Retries";
    static final String ADMISSION = "Admission control";
    static final String TENANTS = "Tenants and flow control";
    static final String LIFECYCLE = "Timeouts and shutdown";
    static final String SECURITY = "Security and input limits";
    static final String PD = "Prefill/decode disaggregation";
    static final String KV = "KV events and kv_aware";
    static final String SYNC = "Replica sync";
    static final String TOKENS = "Prompt tokens (the engine's own)";
    static final String OBSERVABILITY = "Metrics, tracing and logs";
    static final String TLS = "TLS";

    /**
     * Upper bound of every duration in seconds: ten years. Anything longer is a typo, and {@code Long.MAX_VALUE}
     * seconds would overflow the millisecond and nanosecond arithmetic of the timers that use them.
     */
    public static final long MAX_SECONDS = 10L * 365 * 24 * 3600;
    /** Upper bound of every duration in milliseconds: {@link #MAX_SECONDS}. */
    public static final long MAX_MILLIS = MAX_SECONDS * 1000;
    /** Who checks a policy option's range: the policy library's config records ({@code PolicyConfig.fromOptions}). */
    public static final String BY_POLICY = "the policy that uses it";
    /** {@code --max-tree-size auto}: tree budgets sized per worker from its engine's KV capacity. */
    public static final String AUTO = "auto";
    /** Every policy name the library resolves, with its aliases ({@code roundrobin} for {@code round_robin}). */
    private static final Choices POLICY_NAMES = policyNames();
    /** Log4j levels; SGLang's older launchers also said {@code warning} and {@code critical}. */
    private static final Choices LOG_LEVELS = Choices.of("trace", "debug", "info", "warn", "error")
            .withAlias("warning", "warn").withAlias("critical", "error");
    /** A Kubernetes annotation key: non-empty, no whitespace. */
    private static final String ANNOTATION_KEY = "\\S+";
    private static final String ANNOTATION_KEY_MEANING = "an annotation key without spaces";

    // ---- Server -------------------------------------------------------------------------------------------------
    public static final CaravanFlag HOST = row("--host", "caravan.host", STRING, SERVER)
            .defaultValue(GatewayConfig.DEFAULT_HOST)
            .describe("Address the gateway's HTTP server binds.");
    public static final CaravanFlag PORT = row("--port", "caravan.port", INT, SERVER)
            .defaultValue(GatewayConfig.DEFAULT_PORT).range(0, 65535)
            .describe("Port of the gateway's HTTP server (inference, admin API, and /metrics as --port-metrics says); "
                    + "0 picks a free one.");
    public static final CaravanFlag MAX_PAYLOAD_SIZE = row("--max-payload-size", "caravan.max-payload-size",
            LONG, SERVER)
            .defaultValue(GatewayConfig.DEFAULT_MAX_PAYLOAD_SIZE).min(1)
            .describe("Largest request body accepted, in bytes; larger bodies get 413.");
    public static final CaravanFlag API_KEY = row("--api-key", "caravan.api-key", STRING, SERVER).secret()
            .describe("When set, clients must send 'Authorization: Bearer <key>' (else 401), and workers registered "
                    + "without their own api_key are called with it.");
    public static final CaravanFlag LOG_LEVEL = row("--log-level", "caravan.log-level", STRING, SERVER)
            .defaultValue(GatewayConfig.DEFAULT_LOG_LEVEL).oneOf(LOG_LEVELS)
            .describe("Log level of the gateway.");
    public static final CaravanFlag REQUEST_ID_HEADERS = row("--request-id-headers", "caravan.request-id-headers",
            LIST, SERVER)
            .defaultValue(GatewayConfig.DEFAULT_REQUEST_ID_HEADERS)
            .describe("Request headers whose value is taken as the request id (first present wins); otherwise one is "
                    + "generated. It is forwarded as X-Request-Id.");
    public static final CaravanFlag DECISION_HEADERS = row("--decision-headers", "caravan.decision-headers",
            BOOLEAN, SERVER)
            .defaultValue(GatewayConfig.DEFAULT_DECISION_HEADERS)
            .describe("Add X-Caravan-Worker (the engine's URL) and X-Caravan-Decision (policy:branch) to inference "
                    + "responses: for tests, demos and trusted clients, since they show clients the engines' addresses.");
    public static final CaravanFlag SERVER_EVENT_LOOPS = row("--server-event-loops", "caravan.server-event-loops",
            INT, SERVER)
            .defaultValue(GatewayConfig.DEFAULT_SERVER_EVENT_LOOPS).range(0, 256)
            .describe("Vert.x event loops that accept and serve connections (each with its upstream connections); 0 = "
                    + "one per core.");
    public static final CaravanFlag DISPATCH = row("--dispatch", "caravan.dispatch", STRING, SERVER)
            .defaultValue(GatewayConfig.DEFAULT_DISPATCH)
            .oneOf(GatewayConfig.DISPATCH_EVENT_LOOP, GatewayConfig.DISPATCH_WORKER)
            .describe("Where a request's route runs until it goes asynchronous: 'event-loop' (the connection's event "
                    + "loop; no thread hop; every step must be non-blocking, as the built-in ones are) or 'worker' (a "
                    + "Vert.x worker thread, released once the request is forwarded; for routes with blocking steps).");
    public static final CaravanFlag ROUTES = row("--routes", "caravan.routes", STRING, SERVER)
            .describe("Directory of *.camel.yaml routes to load instead of the built-in ones; edits there reload "
                    + "live.");
    public static final CaravanFlag CONFIG = row("--config", "caravan.config", STRING, SERVER)
            .describe("Properties file with caravan.* (and camel.*) settings; see 'Precedence'.");
    public static final CaravanFlag SGLANG_DEFAULTS = row("--sglang-defaults", "caravan.sglang-defaults", SWITCH,
            SERVER)
            .describe("Use SGLang's default for every setting whose Caravan default differs (listed under 'Defaults "
                    + "that differ from SGLang'); settings given explicitly keep their value.");
    public static final CaravanFlag CORS_ALLOWED_ORIGINS = row("--cors-allowed-origins",
            "caravan.cors-allowed-origins", LIST, SERVER)
            .describe("Origins browsers may call the gateway from (CORS: GET, POST, OPTIONS; Content-Type and "
                    + "Authorization; X-Request-Id exposed). Empty: any origin, method and header, as SGLang.");

    // ---- Workers ------------------------------------------------------------------------------------------------
    public static final CaravanFlag WORKER_URLS = row("--worker-urls", "caravan.worker-urls", LIST, WORKERS)
            .describe("Engine URLs registered at start (space-separated on the command line, comma-separated as a "
                    + "property).");
    public static final CaravanFlag BACKEND = row("--backend", "caravan.backend", STRING, WORKERS).alias("--runtime")
            .defaultValue(GatewayConfig.DEFAULT_BACKEND).oneOf("sglang", "vllm", "trtllm", "openai", "anthropic")
            .refusing("Caravan routes to SGLang and vLLM engines over HTTP; gRPC runtimes and external APIs are not "
                    + "implemented", "trtllm", "openai", "anthropic")
            .describe("Engine type of workers registered without one (runtime in POST /workers) and not yet detected: "
                    + "sglang or vllm. It picks a worker's cache-flush endpoint and the engine paths of tokenize, "
                    + "detokenize and classify (docs/sglang-compat.md).");
    public static final CaravanFlag DP_AWARE = row("--dp-aware", "caravan.dp-aware", SWITCH, WORKERS)
            .defaultValue(false)
            .differs("ranks are workers url@rank and requests are pinned to them as in SGLang, kv_aware scoring each "
                    + "rank on its own blocks; P/D prefill ranks are not passed to decode (disagg_prefill_dp_rank)")
            .describe("Route to each data-parallel rank of an engine as its own worker url@rank: the engine's dp_size "
                    + "is read from its /get_server_info at registration, and the chosen rank is pinned with "
                    + "data_parallel_rank in the body (SGLang) and the X-data-parallel-rank header (vLLM).");
    public static final CaravanFlag WORKER_STARTUP_TIMEOUT_SECS = row("--worker-startup-timeout-secs",
            "caravan.worker-startup-timeout-secs", LONG, WORKERS)
            .defaultValue(GatewayConfig.DEFAULT_WORKER_STARTUP_TIMEOUT_SECS).range(1, MAX_SECONDS)
            .differs("only --dp-aware waits for an engine (to read its ranks); every other worker is registered at "
                    + "once and serves when its health checks pass")
            .describe("--dp-aware: how long registration keeps asking a new engine for its dp_size before it "
                    + "registers the engine as one worker.");
    public static final CaravanFlag WORKER_STARTUP_CHECK_INTERVAL = row("--worker-startup-check-interval",
            "caravan.worker-startup-check-interval", LONG, WORKERS)
            .defaultValue(GatewayConfig.DEFAULT_WORKER_STARTUP_CHECK_INTERVAL_SECS).range(1, MAX_SECONDS)
            .differs("only --dp-aware waits for an engine; SGLang's load monitor also ran at this interval, "
                    + "Caravan's runs at --load-check-interval")
            .describe("--dp-aware: seconds between two attempts to read a new engine's dp_size.");

    // ---- Policy -------------------------------------------------------------------------------------------------
    public static final CaravanFlag POLICY_NAME = row("--policy", "caravan.policy.name", STRING, POLICY)
            .defaultValue(GatewayConfig.DEFAULT_POLICY).oneOf(POLICY_NAMES)
            .describe("Load-balancing policy (kv_aware: precise, from KV events). One instance per model.");
    public static final CaravanFlag SHADOW_POLICIES = row("--shadow-policies", "caravan.shadow-policies", LIST,
            POLICY)
            .pattern(policyNamePattern(), "policy names")
            .describe("Policies scored on live traffic but never followed: per request, what each would have chosen and "
                    + "what its pick held of the prompt (caravan_shadow_*, docs/observability.md); no engine calls.");
    public static final CaravanFlag CACHE_THRESHOLD = option(PolicyConfig.CACHE_THRESHOLD, DOUBLE, POLICY)
            .defaultValue(CacheAwareConfig.DEFAULT_CACHE_THRESHOLD).checkedBy(BY_POLICY)
            .describe("cache_aware: prefix match rate (0..1) above which a request goes to the worker holding the "
                    + "prefix.");
    public static final CaravanFlag BALANCE_ABS_THRESHOLD = option(PolicyConfig.BALANCE_ABS_THRESHOLD, INT, POLICY)
            .defaultValue(CacheAwareConfig.DEFAULT_BALANCE_ABS_THRESHOLD).checkedBy(BY_POLICY)
            .describe("cache_aware, bucket: the imbalance guard needs max-min in-flight load above this many "
                    + "requests.");
    public static final CaravanFlag BALANCE_REL_THRESHOLD = option(PolicyConfig.BALANCE_REL_THRESHOLD, DOUBLE, POLICY)
            .defaultValue(CacheAwareConfig.DEFAULT_BALANCE_REL_THRESHOLD).checkedBy(BY_POLICY)
            .describe("cache_aware, bucket: ... and max above min times this ratio.");
    public static final CaravanFlag EVICTION_INTERVAL = option(PolicyConfig.EVICTION_INTERVAL, LONG, POLICY)
            .alias("--eviction-interval-secs")
            .defaultValue(CacheAwareConfig.DEFAULT_EVICTION_INTERVAL.toSeconds()).checkedBy(BY_POLICY)
            .describe("cache_aware: seconds between tree evictions (0 disables); manual: TTL sweep interval.");
    public static final CaravanFlag MAX_TREE_SIZE = option(PolicyConfig.MAX_TREE_SIZE, LONG, POLICY)
            .defaultValue(CacheAwareConfig.DEFAULT_MAX_TREE_SIZE)
            .special(AUTO, "per worker from its engine's KV capacity").checkedBy(BY_POLICY)
            .describe("cache_aware: characters each worker may keep in a model's tree after eviction; 'auto': its "
                    + "engine's KV capacity in tokens times --kv-chars-per-token (docs/kv-events.md), also enforced on "
                    + "insert once passed by 1/32, as the engine's pool is.");
    public static final CaravanFlag MIN_PREFIX_MATCH_CHARS = option(PolicyConfig.MIN_PREFIX_MATCH_CHARS, INT, POLICY)
            .defaultValue(CacheAwareConfig.DEFAULT_MIN_PREFIX_MATCH_CHARS).checkedBy(BY_POLICY)
            .sglangDefault(0, "SGLang's hit test is the match rate alone, so a tenant's preamble before a long unique "
                    + "document (RAG) is a miss and is scattered over every engine: prefix hit 0.357 against 0.928 "
                    + "with a 4,096-character match counting as a hit, and 0.159 against 0.178 on the Mooncake replay; "
                    + "the same elsewhere (docs/benchmarks.md, defaults chosen from measurements)")
            .describe("cache_aware (Caravan): a match of at least this many characters is a hit whatever the rate; 0 "
                    + "= off.");
    public static final CaravanFlag IMBALANCE_PREFER_CACHED =
            option(PolicyConfig.IMBALANCE_PREFER_CACHED, BOOLEAN, POLICY)
            .defaultValue(CacheAwareConfig.DEFAULT_IMBALANCE_PREFER_CACHED)
            .describe("cache_aware (Caravan): when the guard fires, prefer the longest cached prefix among "
                    + "near-least-loaded workers.");
    public static final CaravanFlag STALE_FALLBACK_MIN_LOAD =
            option(PolicyConfig.STALE_FALLBACK_MIN_LOAD, BOOLEAN, POLICY)
            .defaultValue(CacheAwareConfig.DEFAULT_STALE_FALLBACK_MIN_LOAD)
            .describe("cache_aware (Caravan): when the matched worker is gone, fall back to the least loaded one.");
    public static final CaravanFlag BALANCE_ENGINE_LOAD = option(PolicyConfig.BALANCE_ENGINE_LOAD, BOOLEAN, POLICY)
            .defaultValue(CacheAwareConfig.DEFAULT_BALANCE_ENGINE_LOAD)
            .describe("cache_aware (Caravan): the imbalance guard and least-loaded choices count a worker's load as "
                    + "max(in-flight, engine running + waiting) while its polled engine load is under two "
                    + "--load-check-interval old.");
    public static final CaravanFlag SHARED_PREFIX_OWNER = option(PolicyConfig.SHARED_PREFIX_OWNER, STRING, POLICY)
            .defaultValue(CacheAwareConfig.DEFAULT_SHARED_PREFIX_OWNER.wireName())
            .oneOf(Choices.of(Arrays.stream(OwnerRule.values()).map(OwnerRule::wireName).toList()))
            .describe("cache_aware: the worker a prefix held by several reports: first (SGLang: the one that first "
                    + "received it, while the tree holds it there) or latest (the last one it was sent to).");
    public static final CaravanFlag DISCOUNT_SHARED_PREFIX = option(PolicyConfig.DISCOUNT_SHARED_PREFIX, BOOLEAN, POLICY)
            .defaultValue(CacheAwareConfig.DEFAULT_DISCOUNT_SHARED_PREFIX)
            .sglangDefault(false, "SGLang counts a preamble every conversation shares as a hit, so new conversations "
                    + "herd onto one engine at low load (share 4.00 of 4 engines) and a tenant with 40 % of the "
                    + "traffic piles onto one (share 3.25, hit 0.829 vs 0.862 with the discount); elsewhere the "
                    + "decisions are the same (docs/benchmarks.md, placement on ties and misses)")
            .describe("cache_aware (Caravan): a preamble requests branch off from that carries at least 1/N of the "
                    + "traffic (N healthy workers) makes no hit: only the match beyond it counts, so new "
                    + "conversations spread while later turns keep their worker.");
    public static final CaravanFlag MIN_LOAD_TIE_BREAK = option(PolicyConfig.MIN_LOAD_TIE_BREAK, STRING, POLICY)
            .defaultValue(CacheAwareConfig.DEFAULT_MIN_LOAD_TIE_BREAK.wireName())
            .oneOf(Choices.of(Arrays.stream(MinLoadTieBreak.values()).map(MinLoadTieBreak::wireName).toList()))
            .describe("cache_aware: how least-loaded choices break ties: processed (SGLang: fewer selections, then "
                    + "list order) or footprint (smallest tree, then random).");
    public static final CaravanFlag ONE_OFF_SINK_SHARE = option(PolicyConfig.ONE_OFF_SINK_SHARE, DOUBLE, POLICY)
            .defaultValue(CacheAwareConfig.DEFAULT_ONE_OFF_SINK_SHARE)
            .describe("cache_aware (Caravan): cache-pollution-aware placement; a miss whose context (the shared "
                    + "prefix it branches off) saw fewer than half of its new prompts continued goes to this share of "
                    + "the workers, other misses to the rest; in [0,1), 0 = off.");
    public static final CaravanFlag HOT_PREFIX_REPLICATION = option(PolicyConfig.HOT_PREFIX_REPLICATION, BOOLEAN, POLICY)
            .defaultValue(CacheAwareConfig.DEFAULT_HOT_PREFIX_REPLICATION)
            .describe("cache_aware (Caravan): a prefix with more than 1/N of the recent traffic is held by the fewest "
                    + "k engines that keep each within 1.15 of the mean (k rises at once, falls after 30 s lower) and "
                    + "the requests only it makes a hit take turns on them.");
    public static final CaravanFlag PREFILL_BACKLOG_RATIO = option(PolicyConfig.PREFILL_BACKLOG_RATIO, DOUBLE, POLICY)
            .defaultValue(CacheAwareConfig.DEFAULT_PREFILL_BACKLOG_RATIO).checkedBy(BY_POLICY)
            .describe("cache_aware (Caravan): a hit leaves its holder for the cheapest other worker when the holder's "
                    + "pending prefills (uncached prompt characters sent without a first token yet, less the progress "
                    + "at its measured speed) plus this prompt's uncached part exceed this ratio times the other's and "
                    + "the largest recent prompt; 0 = off, else >= 1.");
    public static final CaravanFlag BUCKET_ADJUST_INTERVAL = option(PolicyConfig.BUCKET_ADJUST_INTERVAL, LONG, POLICY)
            .alias("--bucket-adjust-interval-secs")
            .defaultValue(BucketConfig.DEFAULT_BUCKET_ADJUST_INTERVAL.toSeconds()).checkedBy(BY_POLICY)
            .describe("bucket: seconds between bucket boundary adjustments.");
    public static final CaravanFlag ASSIGNMENT_MODE = option(PolicyConfig.ASSIGNMENT_MODE, STRING, POLICY)
            .defaultValue(ManualConfig.DEFAULT_ASSIGNMENT_MODE.wireName())
            .oneOf(Choices.of(Arrays.stream(ManualConfig.AssignmentMode.values())
                    .map(ManualConfig.AssignmentMode::wireName).toList()))
            .sglangDefault(ManualConfig.AssignmentMode.RANDOM.wireName(), "SGLang draws a new key's worker at random, "
                    + "so keys land unevenly (max/mean share 1.17 against 1.06 on b2b) and the share differs between "
                    + "runs and between gateway replicas; min_group gives every worker the same number of keys.")
            .differs("default min_group, not random (--sglang-defaults restores random); min_group counts the keys "
                    + "remembered with a worker, SGLang's the distinct keys with requests in flight on it")
            .describe("manual: how a new routing key picks its worker.");
    public static final CaravanFlag MAX_IDLE_SECS = option(PolicyConfig.MAX_IDLE_SECS, LONG, POLICY)
            .defaultValue(ManualConfig.DEFAULT_MAX_IDLE.toSeconds()).checkedBy(BY_POLICY)
            .describe("manual: seconds after which an idle routing key is forgotten.");
    public static final CaravanFlag PREFIX_TOKEN_COUNT = option(PolicyConfig.PREFIX_TOKEN_COUNT, INT, POLICY)
            .defaultValue(PrefixHashConfig.DEFAULT_PREFIX_TOKEN_COUNT).checkedBy(BY_POLICY)
            .describe("prefix_hash: leading tokens hashed to pick the worker.");
    public static final CaravanFlag LOAD_FACTOR = option(PolicyConfig.LOAD_FACTOR, DOUBLE, POLICY)
            .alias("--prefix-hash-load-factor")
            .defaultValue(PrefixHashConfig.DEFAULT_LOAD_FACTOR).checkedBy(BY_POLICY)
            .describe("prefix_hash: a worker above this factor times the mean load is skipped.");
    public static final CaravanFlag MAX_LOAD_SKEW = option(PolicyConfig.MAX_LOAD_SKEW, DOUBLE, POLICY)
            .defaultValue(BoundedConsistentHashingConfig.DEFAULT_MAX_LOAD_SKEW).checkedBy(BY_POLICY)
            .describe("bounded_consistent_hashing: an X-SMG-Routing-Key whose worker is above this factor times the "
                    + "mean load spills to the next ring worker within it.");
    public static final CaravanFlag MIN_LOAD_GAP = option(PolicyConfig.MIN_LOAD_GAP, INT, POLICY)
            .defaultValue(BoundedConsistentHashingConfig.DEFAULT_MIN_LOAD_GAP).checkedBy(BY_POLICY)
            .describe("bounded_consistent_hashing: ... and only when its load exceeds the least loaded worker's by "
                    + "more than this many requests.");

    // ---- Upstream -----------------------------------------------------------------------------------------------
    public static final CaravanFlag REQUEST_TIMEOUT_SECS = row("--request-timeout-secs", "caravan.request-timeout-secs",
            LONG, UPSTREAM)
            .defaultValue(GatewayConfig.DEFAULT_REQUEST_TIMEOUT_SECS).range(1, MAX_SECONDS)
            .describe("End-to-end limit per request, in seconds, from its arrival (queueing and retries included): "
                    + "504 before the response starts; a stream that started is ended (SSE: with a final error "
                    + "event).");
    public static final CaravanFlag CONNECT_TIMEOUT_SECS = row("--connect-timeout-secs", "caravan.connect-timeout-secs",
            LONG, UPSTREAM)
            .defaultValue(GatewayConfig.DEFAULT_CONNECT_TIMEOUT_SECS).range(1, MAX_SECONDS)
            .describe("Limit for opening a connection to a worker, in seconds (then 502).");
    public static final CaravanFlag MAX_CONNECTIONS_PER_WORKER = row("--max-connections-per-worker",
            "caravan.max-connections-per-worker", INT, UPSTREAM)
            .defaultValue(GatewayConfig.DEFAULT_MAX_CONNECTIONS_PER_WORKER).min(1)
            .describe("HTTP/1.1 connections the gateway keeps open to each worker at most (one per concurrent "
                    + "request), split evenly over the server's event loops (at least one each).");

    // ---- Control plane ------------------------------------------------------------------------------------------
    public static final CaravanFlag LOAD_CHECK_INTERVAL = row("--load-check-interval", "caravan.load-check-interval",
            LONG, CONTROL)
            .defaultValue(GatewayConfig.DEFAULT_LOAD_CHECK_INTERVAL_SECS).range(0, MAX_SECONDS)
            .describe("Seconds between polls of each worker's /get_load and /metrics (engine queue, KV usage); 0 "
                    + "disables.");
    public static final CaravanFlag CONTROL_TIMEOUT_SECS = row("--control-timeout-secs", "caravan.control-timeout-secs",
            LONG, CONTROL)
            .defaultValue(GatewayConfig.DEFAULT_CONTROL_TIMEOUT_SECS).range(1, MAX_SECONDS)
            .describe("Limit for one control-plane call (load poll, /flush_cache, /v1/models, /get_loads), in "
                    + "seconds.");

    // ---- Kubernetes service discovery (docs/kubernetes.md) --------------------------------------------------------
    /** SGLang's default {@code --service-discovery-port} (its Python launcher and Rust CLI agree on 80). */
    public static final int DISCOVERY_DEFAULT_PORT = 80;
    /** SGLang's default {@code --bootstrap-port-annotation}. */
    public static final String DISCOVERY_DEFAULT_BOOTSTRAP_PORT_ANNOTATION = "sglang.ai/bootstrap-port";
    /** Caravan's annotation for the model id a pod serves. */
    public static final String DISCOVERY_DEFAULT_MODEL_ANNOTATION = "caravan.dev/model";
    /** Caravan's annotation for a pod's KV-event PUB endpoint, e.g. {@code tcp://*:5557} or just {@code 5557}. */
    public static final String DISCOVERY_DEFAULT_KV_EVENTS_ANNOTATION = "caravan.dev/kv-events-endpoint";
    /** Caravan's annotation for a pod's KV-event replay endpoint, e.g. {@code tcp://*:5558} or {@code 5558}. */
    public static final String DISCOVERY_DEFAULT_KV_REPLAY_ANNOTATION = "caravan.dev/kv-replay-endpoint";
    /** Default resync interval, the {@code pod-watch:} consumer's: SGLang restarts its watcher every 120 s. */
    public static final Duration DISCOVERY_DEFAULT_RESYNC_INTERVAL =
            Duration.ofMillis(PodWatchConfiguration.DEFAULT_RESYNC_INTERVAL_MS);

    public static final CaravanFlag SERVICE_DISCOVERY = row("--service-discovery", "caravan.discovery.enabled",
            SWITCH, DISCOVERY)
            .defaultValue(false)
            .describe("Discover workers from Kubernetes pods: a pod is added when Running and Ready and drained when "
                    + "it stops being ready, stops matching, terminates or disappears.");
    public static final CaravanFlag SELECTOR = row("--selector", "caravan.discovery.selector", LIST, DISCOVERY)
            .describe("Labels (k=v ...) a pod must all carry to be a regular worker.");
    public static final CaravanFlag PREFILL_SELECTOR = row("--prefill-selector", "caravan.discovery.prefill-selector",
            LIST, DISCOVERY)
            .describe("P/D: labels (k=v ...) of prefill pods; checked before --decode-selector.");
    public static final CaravanFlag DECODE_SELECTOR = row("--decode-selector", "caravan.discovery.decode-selector",
            LIST, DISCOVERY)
            .describe("P/D: labels (k=v ...) of decode pods.");
    public static final CaravanFlag SERVICE_DISCOVERY_PORT = row("--service-discovery-port", "caravan.discovery.port",
            INT, DISCOVERY)
            .defaultValue(DISCOVERY_DEFAULT_PORT).range(1, 65535)
            .describe("Engine port on each pod; the worker URL is http://podIP:port.");
    public static final CaravanFlag SERVICE_DISCOVERY_NAMESPACE = row("--service-discovery-namespace",
            "caravan.discovery.namespace", STRING, DISCOVERY)
            .describe("Namespace whose pods are watched; unset watches all namespaces (needs a ClusterRole).");
    public static final CaravanFlag BOOTSTRAP_PORT_ANNOTATION = row("--bootstrap-port-annotation",
            "caravan.discovery.bootstrap-port-annotation", STRING, DISCOVERY)
            .defaultValue(DISCOVERY_DEFAULT_BOOTSTRAP_PORT_ANNOTATION).pattern(ANNOTATION_KEY, ANNOTATION_KEY_MEANING)
            .describe("Pod annotation holding a prefill pod's KV bootstrap port.");
    public static final CaravanFlag MODEL_ANNOTATION = row("--model-annotation", "caravan.discovery.model-annotation",
            STRING, DISCOVERY)
            .defaultValue(DISCOVERY_DEFAULT_MODEL_ANNOTATION).pattern(ANNOTATION_KEY, ANNOTATION_KEY_MEANING)
            .describe("Pod annotation holding the model id the pod serves (absent: it serves any model).");
    public static final CaravanFlag KV_EVENTS_ANNOTATION = row("--kv-events-annotation",
            "caravan.discovery.kv-events-annotation", STRING, DISCOVERY)
            .defaultValue(DISCOVERY_DEFAULT_KV_EVENTS_ANNOTATION).pattern(ANNOTATION_KEY, ANNOTATION_KEY_MEANING)
            .describe("Pod annotation holding the engine's KV-event PUB endpoint (tcp://*:5557 or 5557; * becomes the "
                    + "pod IP).");
    public static final CaravanFlag KV_REPLAY_ANNOTATION = row("--kv-replay-annotation",
            "caravan.discovery.kv-replay-annotation", STRING, DISCOVERY)
            .defaultValue(DISCOVERY_DEFAULT_KV_REPLAY_ANNOTATION).pattern(ANNOTATION_KEY, ANNOTATION_KEY_MEANING)
            .describe("Pod annotation holding the engine's KV-event replay endpoint (tcp://*:5558 or 5558).");
    public static final CaravanFlag DISCOVERY_RESYNC_INTERVAL = row("--discovery-resync-interval",
            "caravan.discovery.resync-interval", LONG, DISCOVERY)
            .defaultValue(DISCOVERY_DEFAULT_RESYNC_INTERVAL.toSeconds()).range(0, MAX_SECONDS)
            .describe("Seconds between full pod re-lists that reconcile the workers besides the watch; 0 disables.");

    // ---- Health checks (docs/reliability.md) ----------------------------------------------------------------------
    public static final CaravanFlag HEALTH_CHECK_INTERVAL_SECS = row("--health-check-interval-secs",
            "caravan.health.interval-secs", LONG, HEALTH)
            .defaultValue(HealthConfig.DEFAULT_INTERVAL.toSeconds()).range(1, MAX_SECONDS)
            .describe("Seconds between probes of each worker (a worker's health_check_interval_secs overrides it).");
    public static final CaravanFlag HEALTH_CHECK_TIMEOUT_SECS = row("--health-check-timeout-secs",
            "caravan.health.timeout-secs", LONG, HEALTH)
            .defaultValue(HealthConfig.DEFAULT_TIMEOUT.toSeconds()).range(1, MAX_SECONDS)
            .describe("A probe that takes longer than this many seconds fails (per worker: "
                    + "health_check_timeout_secs).");
    public static final CaravanFlag HEALTH_CHECK_ENDPOINT = row("--health-check-endpoint", "caravan.health.endpoint",
            STRING, HEALTH)
            .defaultValue(HealthConfig.DEFAULT_ENDPOINT).pattern("/\\S*", "a path starting with /")
            .describe("Path each worker is probed on with GET; 2xx = success.");
    public static final CaravanFlag HEALTH_FAILURE_THRESHOLD = row("--health-failure-threshold",
            "caravan.health.failure-threshold", INT, HEALTH)
            .defaultValue(HealthConfig.DEFAULT_FAILURE_THRESHOLD).min(1)
            .describe("Consecutive failed probes that mark a healthy worker unhealthy (per worker: "
                    + "health_failure_threshold).");
    public static final CaravanFlag HEALTH_SUCCESS_THRESHOLD = row("--health-success-threshold",
            "caravan.health.success-threshold", INT, HEALTH)
            .defaultValue(HealthConfig.DEFAULT_SUCCESS_THRESHOLD).min(1)
            .describe("Consecutive successful probes that mark an unhealthy worker healthy again (per worker: "
                    + "health_success_threshold).");
    public static final CaravanFlag DISABLE_HEALTH_CHECK = row("--disable-health-check", "caravan.health.disabled",
            SWITCH, HEALTH)
            .defaultValue(false)
            .describe("Never probe workers; they stay healthy (per worker: disable_health_check).");
    public static final CaravanFlag EVENT_LOOP_STALL_SECS = row("--event-loop-stall-secs",
            "caravan.health.event-loop-stall-secs", LONG, HEALTH)
            .defaultValue(EventLoopsHealthCheck.DEFAULT_STALL_LIMIT.toSeconds()).range(2, MAX_SECONDS)
            .describe("/liveness (Camel's liveness check caravan-event-loops) fails when one of the gateway's event "
                    + "loops has not run its once-a-second heartbeat for this many seconds.");

    // ---- Circuit breakers -----------------------------------------------------------------------------------------
    public static final CaravanFlag CB_FAILURE_THRESHOLD = row("--cb-failure-threshold", "caravan.cb.failure-threshold",
            INT, BREAKER)
            .defaultValue(BreakerConfig.DEFAULT_FAILURE_THRESHOLD).min(1)
            .describe("Consecutive failed attempts (5xx except 503, connection failures, timeouts; never 4xx or "
                    + "client hang-ups) that open a worker's breaker and take it out of routing.");
    public static final CaravanFlag CB_SUCCESS_THRESHOLD = row("--cb-success-threshold", "caravan.cb.success-threshold",
            INT, BREAKER)
            .defaultValue(BreakerConfig.DEFAULT_SUCCESS_THRESHOLD).min(1)
            .describe("Consecutive successes that close a half-open breaker (any failure while half-open reopens it).");
    public static final CaravanFlag CB_TIMEOUT_DURATION_SECS = row("--cb-timeout-duration-secs",
            "caravan.cb.timeout-duration-secs", LONG, BREAKER)
            .defaultValue(BreakerConfig.DEFAULT_OPEN_TIMEOUT.toSeconds()).range(1, MAX_SECONDS)
            .describe("Seconds an open breaker keeps its worker out before letting requests through again "
                    + "(half-open).");
    public static final CaravanFlag CB_WINDOW_DURATION_SECS = row("--cb-window-duration-secs",
            "caravan.cb.window-duration-secs", LONG, BREAKER)
            .defaultValue(BreakerConfig.DEFAULT_WINDOW_SECS)
            .describe("Accepted for SGLang compatibility and unused, as in SGLang (failures count consecutively, not "
                    + "per window).");
    public static final CaravanFlag DISABLE_CIRCUIT_BREAKER = row("--disable-circuit-breaker", "caravan.cb.disabled",
            SWITCH, BREAKER)
            .defaultValue(false)
            .describe("Breakers never open.");

    // ---- Retries --------------------------------------------------------------------------------------------------
    public static final CaravanFlag RETRY_MAX_RETRIES = row("--retry-max-retries", "caravan.retry.max-retries",
            INT, RETRY)
            .defaultValue(RetryConfig.DEFAULT_MAX_ATTEMPTS).range(1, 100)
            .describe("Total attempts per request, the first included (SGLang's meaning). Retried before any byte "
                    + "reached the client: connection failures, idle timeouts and 408/429/500/502/503/504, each on a "
                    + "newly selected worker (not one that already failed the request while another is available).");
    public static final CaravanFlag RETRY_INITIAL_BACKOFF_MS = row("--retry-initial-backoff-ms",
            "caravan.retry.initial-backoff-ms", LONG, RETRY)
            .defaultValue(RetryConfig.DEFAULT_INITIAL_BACKOFF.toMillis()).range(0, MAX_MILLIS)
            .describe("Milliseconds before the first retry.");
    public static final CaravanFlag RETRY_MAX_BACKOFF_MS = row("--retry-max-backoff-ms", "caravan.retry.max-backoff-ms",
            LONG, RETRY)
            .defaultValue(RetryConfig.DEFAULT_MAX_BACKOFF.toMillis()).range(0, MAX_MILLIS)
            .describe("Cap on the delay between attempts, in ms.");
    public static final CaravanFlag RETRY_BACKOFF_MULTIPLIER = row("--retry-backoff-multiplier",
            "caravan.retry.backoff-multiplier", DOUBLE, RETRY)
            .defaultValue(RetryConfig.DEFAULT_MULTIPLIER).min(1.0)
            .describe("Growth of the delay per retry: initial x multiplier^k, capped.");
    public static final CaravanFlag RETRY_JITTER_FACTOR = row("--retry-jitter-factor", "caravan.retry.jitter-factor",
            DOUBLE, RETRY)
            .defaultValue(RetryConfig.DEFAULT_JITTER_FACTOR).range(0.0, 1.0)
            .describe("Each delay is multiplied by a uniform factor in [1-j, 1+j].");
    public static final CaravanFlag DISABLE_RETRIES = row("--disable-retries", "caravan.retry.disabled", SWITCH, RETRY)
            .defaultValue(false)
            .describe("One attempt per request.");

    // ---- Admission control ----------------------------------------------------------------------------------------
    public static final CaravanFlag MAX_CONCURRENT_REQUESTS = row("--max-concurrent-requests",
            "caravan.admission.max-concurrent-requests", INT, ADMISSION)
            .defaultValue(AdmissionConfig.DEFAULT_MAX_CONCURRENT).special("-1", "unlimited").min(1)
            .describe("Inference requests served at once (a slot is held until the response ends).");
    public static final CaravanFlag QUEUE_SIZE = row("--queue-size", "caravan.admission.queue-size", INT, ADMISSION)
            .defaultValue(AdmissionConfig.DEFAULT_QUEUE_SIZE).min(0)
            .describe("Requests that may wait (FIFO) for a slot; beyond it 429. 0 = no queue. With --tenants-file the "
                    + "queue serves by class priority, then fair share by tokens.");
    public static final CaravanFlag QUEUE_TIMEOUT_SECS = row("--queue-timeout-secs",
            "caravan.admission.queue-timeout-secs", LONG, ADMISSION)
            .defaultValue(AdmissionConfig.DEFAULT_QUEUE_TIMEOUT.toSeconds()).range(1, MAX_SECONDS)
            .describe("Seconds a request may wait in the queue; then 408.");
    public static final CaravanFlag RATE_LIMIT_TOKENS_PER_SECOND = row("--rate-limit-tokens-per-second",
            "caravan.admission.rate-limit-tokens-per-second", INT, ADMISSION)
            .defaultValue(AdmissionConfig.DEFAULT_RATE_PER_SECOND).special("-1", "off").min(1)
            .sglangDefault("{{caravan.admission.max-concurrent-requests}}", "SGLang refills its concurrency token "
                    + "bucket at --max-concurrent-requests per second; Caravan keeps the admission rate a separate "
                    + "choice, since with slots returned at the end of each request the refill only bites under "
                    + "bursts of short requests")
            .differs("off unless set; SGLang refills its concurrency token bucket at --max-concurrent-requests per "
                    + "second when unset, which with slots returned at the end of each request only matters under a "
                    + "burst of short requests")
            .describe("New inference requests admitted per second (bursts up to one second's worth); over it 429. Off "
                    + "by default (SGLang defaults it to --max-concurrent-requests).");

    // ---- Tenants and flow control (docs/configuration.md#tenants-and-flow-control) ---------------------------------
    public static final CaravanFlag TENANTS_FILE = row("--tenants-file", "caravan.tenants.file", STRING, TENANTS)
            .describe("YAML or JSON file of tenants (API keys, priority classes, per-minute limits on requests, input "
                    + "and output tokens), reloaded when it changes; unset: one FIFO for everyone. Example: "
                    + "config/examples/tenants.yaml.");
    public static final CaravanFlag TENANTS_RELOAD_INTERVAL_SECS = row("--tenants-reload-interval-secs",
            "caravan.tenants.reload-interval-secs", LONG, TENANTS)
            .defaultValue(TenantDirectory.DEFAULT_RELOAD_INTERVAL.toSeconds()).range(1, MAX_SECONDS)
            .describe("How often the tenants file's modification time is checked; a changed file is read again, and "
                    + "one that does not parse is logged and counted while the tenants before stay in force.");

    // ---- Timeouts and shutdown ------------------------------------------------------------------------------------
    public static final CaravanFlag STREAM_IDLE_TIMEOUT_SECS = row("--stream-idle-timeout-secs",
            "caravan.stream-idle-timeout-secs", LONG, LIFECYCLE)
            .defaultValue(GatewayConfig.DEFAULT_STREAM_IDLE_TIMEOUT_SECS).range(0, MAX_SECONDS)
            .describe("Seconds a worker may send nothing during one attempt: between chunks, and before the head of a "
                    + "streamed request (then the attempt fails and is retried); 0 = no limit.");
    public static final CaravanFlag NON_STREAM_ATTEMPT_TIMEOUT_SECS = row("--non-stream-attempt-timeout-secs",
            "caravan.non-stream-attempt-timeout-secs", LONG, LIFECYCLE)
            .defaultValue(GatewayConfig.DEFAULT_NON_STREAM_ATTEMPT_TIMEOUT_SECS).range(0, MAX_SECONDS)
            .describe("Seconds one attempt of a non-streamed request (and a P/D prefill leg) may wait for the "
                    + "response, which engines send only when the generation is done; then the attempt fails and is "
                    + "retried elsewhere. 0 = no limit (only --request-timeout-secs).");
    public static final CaravanFlag SHUTDOWN_GRACE_PERIOD_SECS = row("--shutdown-grace-period-secs",
            "caravan.shutdown-grace-period-secs", LONG, LIFECYCLE)
            .defaultValue(GatewayConfig.DEFAULT_SHUTDOWN_GRACE_PERIOD_SECS).range(0, MAX_SECONDS)
            .describe("On SIGTERM/SIGINT: new inference requests get 503 and readiness fails at once; in-flight "
                    + "requests get this many seconds to finish before the gateway stops.");

    // ---- Security and input limits --------------------------------------------------------------------------------
    public static final CaravanFlag ADMIN_API_KEY = row("--admin-api-key", "caravan.admin-api-key", STRING, SECURITY)
            .secret()
            .describe("When set, the admin API (/workers*, /flush_cache, /get_loads, legacy add/remove/list) requires "
                    + "'Authorization: Bearer <admin key>' instead of --api-key.");
    public static final CaravanFlag MAX_JSON_NESTING_DEPTH = row("--max-json-nesting-depth",
            "caravan.max-json-nesting-depth", INT, SECURITY)
            .defaultValue(GatewayConfig.DEFAULT_MAX_JSON_NESTING_DEPTH).range(1, 100_000)
            .describe("Deepest JSON nesting accepted in a request body; deeper bodies get 400.");

    // ---- Prefill/decode disaggregation (docs/pd.md) ----------------------------------------------------------------
    public static final CaravanFlag PD_DISAGGREGATION = row("--pd-disaggregation", "caravan.pd.enabled", SWITCH, PD)
            .defaultValue(false)
            .describe("Serve chat, completions and generate requests with a prefill and a decode worker each "
                    + "(embeddings stay on regular workers).");
    public static final CaravanFlag PREFILL = row("--prefill", "caravan.pd.prefill", GROUPS, PD)
            .describe("A prefill worker URL and its KV bootstrap port, or 'none' (sent as JSON null); repeat the flag "
                    + "per worker: --prefill http://p1:8000 8998 --prefill http://p2:8000 none.");
    public static final CaravanFlag DECODE = row("--decode", "caravan.pd.decode", LIST, PD)
            .describe("Decode worker URLs (repeat the flag or list them).");
    public static final CaravanFlag PREFILL_POLICY = row("--prefill-policy", "caravan.pd.prefill-policy", STRING, PD)
            .oneOf(POLICY_NAMES)
            .describe("Policy of the prefill pool (unset: --policy); the --policy options apply to it.");
    public static final CaravanFlag DECODE_POLICY = row("--decode-policy", "caravan.pd.decode-policy", STRING, PD)
            .oneOf(POLICY_NAMES)
            .describe("Policy of the decode pool (unset: --policy); the --policy options apply to it.");
    public static final CaravanFlag PD_MODE = row("--pd-mode", "caravan.pd.mode", STRING, PD)
            .defaultValue(PdConfig.DEFAULT_MODE.wireName())
            .oneOf(Choices.of(Arrays.stream(PdMode.values()).map(PdMode::wireName).toList()))
            .describe("P/D protocol: 'sglang' (both legs at once with a bootstrap rendezvous) or 'vllm' (prefill with "
                    + "max_tokens 1 first, then decode with the prefill's kv_transfer_params).");
    // ---- KV events and kv_aware (docs/kv-events.md) ----------------------------------------------------------------
    public static final CaravanFlag KV_TOKENIZER = option(PolicyConfig.KV_TOKENIZER, STRING, KV)
            .defaultValue(KvAwareConfig.DEFAULT_TOKENIZER).checkedBy("kv_aware when it loads the tokenizer")
            .describe("kv_aware: 'pseudo' (the engine simulator's tokenizer) or the path of the model's HuggingFace "
                    + "tokenizer.json, used on the routing text when no prompt tokens are available; prefer "
                    + "--model-path, which gives chat requests the engine's own tokens (docs/tokens.md).");
    public static final CaravanFlag KV_ADD_SPECIAL_TOKENS = row("--kv-add-special-tokens",
            "caravan.kv.add-special-tokens", BOOLEAN, KV)
            .defaultValue(HfTokenizer.DEFAULT_ADD_SPECIAL_TOKENS)
            .describe("kv_aware with --kv-tokenizer: add the tokenizer's special tokens (BOS...) when encoding the "
                    + "routing text, as vLLM's /v1/completions does (true); false for engines fed pre-rendered prompts "
                    + "encoded without them. Prompt tokens (--model-path) follow the engine's rules instead "
                    + "(docs/tokens.md).");
    public static final CaravanFlag KV_CHARS_PER_TOKEN = option(PolicyConfig.KV_CHARS_PER_TOKEN, INT, KV)
            .defaultValue(KvAwareConfig.DEFAULT_CHARS_PER_TOKEN)
            .range(KvAwareConfig.MIN_CHARS_PER_TOKEN, KvAwareConfig.MAX_CHARS_PER_TOKEN)
            .describe("Characters per token: the pseudo-tokenizer's (the simulator's --chars-per-token), and the "
                    + "estimate the tree calibration and 'auto' tree size use.");
    public static final CaravanFlag KV_BLOCK_SIZE = option(PolicyConfig.KV_BLOCK_SIZE, INT, KV)
            .defaultValue(KvAwareConfig.DEFAULT_BLOCK_SIZE)
            .range(KvAwareConfig.MIN_BLOCK_SIZE, KvAwareConfig.MAX_BLOCK_SIZE)
            .describe("Tokens per KV block assumed until an engine reports its own (every BlockStored does; SGLang's "
                    + "page size); also the tree calibration's.");
    public static final CaravanFlag KV_HASH_SEED = option(PolicyConfig.KV_HASH_SEED, STRING, KV)
            .defaultValue(KvAwareConfig.DEFAULT_HASH_SEED)
            .describe("Accepted and ignored: kv_aware keys blocks by its own hash of token ids, so the engines' "
                    + "PYTHONHASHSEED and hash algorithm no longer matter.");
    public static final CaravanFlag KV_OVERLAP_WEIGHT = option(PolicyConfig.KV_OVERLAP_WEIGHT, DOUBLE, KV)
            .defaultValue(KvAwareConfig.DEFAULT_OVERLAP_WEIGHT).checkedBy(BY_POLICY)
            .describe("kv_aware: cost = weight x uncached prefill blocks + active blocks, lowest wins (Dynamo's "
                    + "--kv-overlap-score-weight, whose default is 1).");
    public static final CaravanFlag KV_DECODE_LOAD_SOURCE = option(PolicyConfig.KV_DECODE_LOAD_SOURCE, STRING, KV)
            .defaultValue(KvAwareConfig.DEFAULT_DECODE_LOAD_SOURCE.name().toLowerCase(Locale.ROOT))
            .oneOf(Choices.of(Arrays.stream(KvAwareConfig.DecodeLoadSource.values())
                    .map(v -> v.name().toLowerCase(Locale.ROOT)).toList()))
            .describe("kv_aware: active blocks from 'router' (distinct blocks of this gateway's in-flight requests "
                    + "per engine rank) or 'engine' (the engine's reported token load).");
    public static final CaravanFlag KV_CPU_WEIGHT = option(PolicyConfig.KV_CPU_WEIGHT, DOUBLE, KV)
            .defaultValue(KvAwareConfig.DEFAULT_CPU_WEIGHT).range(0.0, 1.0)
            .describe("kv_aware: what a block in the engine's host-memory tier (medium CPU, CPU_PINNED) saves, "
                    + "relative to a GPU block.");
    public static final CaravanFlag KV_DISK_WEIGHT = option(PolicyConfig.KV_DISK_WEIGHT, DOUBLE, KV)
            .defaultValue(KvAwareConfig.DEFAULT_DISK_WEIGHT).range(0.0, 1.0)
            .describe("kv_aware: what a block in the engine's storage tier (medium STORAGE, DISK) saves, relative to "
                    + "a GPU block.");
    public static final CaravanFlag KV_ROUTER_TEMPERATURE = option(PolicyConfig.KV_ROUTER_TEMPERATURE, DOUBLE, KV)
            .defaultValue(KvAwareConfig.DEFAULT_TEMPERATURE).checkedBy(BY_POLICY)
            .describe("kv_aware: 0 = the lowest cost wins; > 0 = sample workers by softmax of their normalised "
                    + "costs (Dynamo's --router-temperature).");
    public static final CaravanFlag KV_DISCOUNT_SHARED_PREFIX = option(PolicyConfig.KV_DISCOUNT_SHARED_PREFIX,
            BOOLEAN, KV)
            .defaultValue(KvAwareConfig.DEFAULT_DISCOUNT_SHARED_PREFIX)
            .describe("kv_aware: cached blocks count only beyond the request's shared branch point (a prefix at "
                    + "least 1/N of the routed requests pass through and go on from in more than one way, N engine "
                    + "ranks), so a hot tenant and new conversations after a common preamble choose by load.");
    public static final CaravanFlag KV_EVENTS_ENDPOINT_TEMPLATE = row("--kv-events-endpoint-template",
            "caravan.kv.events-endpoint-template", STRING, KV)
            .describe("KV-event PUB endpoint of workers registered without one, from their URL: {host} and {port} are "
                    + "replaced, e.g. tcp://{host}:5557.");
    public static final CaravanFlag KV_REPLAY_ENDPOINT_TEMPLATE = row("--kv-replay-endpoint-template",
            "caravan.kv.replay-endpoint-template", STRING, KV)
            .describe("KV-event replay (ROUTER) endpoint of workers registered without one, e.g. tcp://{host}:5558.");
    public static final CaravanFlag KV_EVENTS_TOPIC = row("--kv-events-topic", "caravan.kv.events-topic", STRING, KV)
            .describe("Topic prefixes (comma-separated) the KV-event subscriptions filter on; empty = all.");
    public static final CaravanFlag KV_REPLAY_TIMEOUT_SECS = row("--kv-replay-timeout-secs",
            "caravan.kv.replay-timeout-secs", LONG, KV)
            .defaultValue(KvSettings.DEFAULT_REPLAY_TIMEOUT.toSeconds()).range(1, MAX_SECONDS)
            .describe("Longest wait for one replay of missed KV-event batches, in seconds.");
    public static final CaravanFlag KV_MAX_BLOCKS_PER_WORKER = row("--kv-max-blocks-per-worker",
            "caravan.kv.max-blocks-per-worker", INT, KV)
            .defaultValue(KvSettings.DEFAULT_MAX_BLOCKS_PER_WORKER).min(1)
            .describe("Block index bound per engine rank (oldest dropped beyond it); set above the largest engine's "
                    + "blocks (KV pool tokens / block size; SGLang's page size is often 1).");
    public static final CaravanFlag KV_SILENCE_THRESHOLD_SECS = row("--kv-silence-threshold-secs",
            "caravan.kv.silence-threshold-secs", LONG, KV)
            .defaultValue(KvSettings.DEFAULT_SILENCE_THRESHOLD.toSeconds()).range(0, MAX_SECONDS)
            .describe("Warn (and set caravan_kv_publisher_silent) when a worker served requests but its KV publisher "
                    + "was silent this long; 0 disables.");
    public static final CaravanFlag KV_CALIBRATE_TREE = row("--kv-calibrate-tree", "caravan.kv.calibrate-tree",
            BOOLEAN, KV)
            .defaultValue(KvSettings.DEFAULT_CALIBRATE_TREE)
            .describe("cache_aware: evict from a worker's tree what its engine reports evicting (BlockRemoved), and "
                    + "drop its tenancy when the engine clears or restarts.");
    public static final CaravanFlag KV_PARITY_EXPIRY_SECS = row("--kv-parity-expiry-secs",
            "caravan.kv.parity-expiry-secs", LONG, KV)
            .defaultValue(KvSettings.DEFAULT_PARITY_EXPIRY.toSeconds()).range(1, MAX_SECONDS)
            .describe("kv_aware self-check: seconds a predicted block may wait for the engine's BlockStored before it "
                    + "counts as a miss.");
    public static final CaravanFlag KV_PARITY_WARN_BELOW = row("--kv-parity-warn-below", "caravan.kv.parity-warn-below",
            DOUBLE, KV)
            .defaultValue(KvSettings.DEFAULT_PARITY_WARN_BELOW).range(0.0, 1.0)
            .describe("kv_aware self-check: warn when the recent agreement of predicted and reported blocks drops "
                    + "below this.");
    public static final CaravanFlag KV_PARITY_FALLBACK = row("--kv-parity-fallback", "caravan.kv.parity-fallback",
            BOOLEAN, KV)
            .defaultValue(false)
            .describe("kv_aware: while the self-check is degraded (below --kv-parity-warn-below), route by cache_aware "
                    + "(same options) except one request in 8, which keeps checking kv_aware's predictions.");

    // ---- Replica sync (caravan-sync; docs/design/replica-sync.md) -----------------------------------------------
    /** {@code --sync none}: every replica routes alone, exactly as a single gateway. */
    public static final String SYNC_NONE = "none";
    /** {@code --sync hazelcast}: an embedded Hazelcast member shares the routing state (module caravan-sync). */
    public static final String SYNC_HAZELCAST = "hazelcast";
    /** Hazelcast's own default member port. */
    public static final int SYNC_DEFAULT_PORT = 5701;
    public static final String SYNC_DEFAULT_CLUSTER_NAME = "caravan";
    /** The headless service of config/k8s whose endpoints are the gateway pods. */
    public static final String SYNC_DEFAULT_KUBERNETES_SERVICE = "caravan-sync";

    public static final CaravanFlag SYNC_MODE = row("--sync", "caravan.sync.mode", STRING, SYNC)
            .defaultValue(SYNC_NONE).oneOf(SYNC_NONE, SYNC_HAZELCAST)
            .describe("Share routing state with the gateway's other replicas: 'none' (each routes alone, as one "
                    + "gateway) or 'hazelcast' (an embedded member; needs dev.caravan:caravan-sync).");
    public static final CaravanFlag SYNC_MEMBERS = row("--sync-members", "caravan.sync.members", LIST, SYNC)
            .describe("The replicas' sync addresses (host:port ...), a static member list; required with --sync "
                    + "hazelcast unless --sync-kubernetes. Multicast is never used.");
    public static final CaravanFlag SYNC_PORT = row("--sync-port", "caravan.sync.port", INT, SYNC)
            .defaultValue(SYNC_DEFAULT_PORT).range(0, 65535)
            .describe("Port of this replica's sync member; 0 picks a free one (tests).");
    public static final CaravanFlag SYNC_HOST = row("--sync-host", "caravan.sync.host", STRING, SYNC)
            .describe("Address the sync member binds and announces to its peers (unset: every interface, announcing "
                    + "one Hazelcast picks). The sync port has no TLS and no authentication: keep it on a network only "
                    + "replicas reach; any address but a loopback one needs --sync-secret.");
    public static final CaravanFlag SYNC_PUBLIC_ADDRESS = row("--sync-public-address", "caravan.sync.public-address",
            STRING, SYNC)
            .describe("host:port peers dial to reach this member when it differs from --sync-host:--sync-port (NAT, "
                    + "a proxy); unset: the bound address.");
    public static final CaravanFlag SYNC_KUBERNETES = row("--sync-kubernetes", "caravan.sync.kubernetes", SWITCH,
            SYNC)
            .defaultValue(false)
            .describe("Find the replicas with Hazelcast's Kubernetes discovery (the endpoints of "
                    + "--sync-kubernetes-service) instead of --sync-members.");
    public static final CaravanFlag SYNC_KUBERNETES_NAMESPACE = row("--sync-kubernetes-namespace",
            "caravan.sync.kubernetes-namespace", STRING, SYNC)
            .describe("Namespace of --sync-kubernetes-service; unset: the pod's own.");
    public static final CaravanFlag SYNC_KUBERNETES_SERVICE = row("--sync-kubernetes-service",
            "caravan.sync.kubernetes-service", STRING, SYNC)
            .defaultValue(SYNC_DEFAULT_KUBERNETES_SERVICE)
            .describe("Headless service selecting the gateway pods; its endpoints are the replicas.");
    public static final CaravanFlag SYNC_CLUSTER_NAME = row("--sync-cluster-name", "caravan.sync.cluster-name",
            STRING, SYNC)
            .defaultValue(SYNC_DEFAULT_CLUSTER_NAME).pattern("\\S+", "a name without spaces")
            .describe("Replicas join only members with the same cluster name: one name per gateway fleet.");
    public static final CaravanFlag SYNC_SECRET = row("--sync-secret", "caravan.sync.secret", STRING, SYNC)
            .describe("Key of the prefix and routing-key hashes replicas exchange; the same on every replica (in "
                    + "Kubernetes from a Secret, CARAVAN_SYNC_SECRET). Unset: keyed by the cluster name, which keeps "
                    + "no prompt unguessable, so the start fails unless --sync-host is a loopback address or "
                    + "--sync-allow-no-secret is given.");
    public static final CaravanFlag SYNC_ALLOW_NO_SECRET = row("--sync-allow-no-secret",
            "caravan.sync.allow-no-secret", SWITCH, SYNC)
            .defaultValue(false)
            .describe("Start a sync member without --sync-secret on a non-loopback --sync-host (or none): anyone who "
                    + "reaches its port can then confirm a guessed prompt (warned at start).");

    // ---- Prompt tokens (docs/tokens.md) ------------------------------------------------------------------------------
    public static final CaravanFlag MODEL_PATH = row("--model-path", "caravan.tokens.model-path", LIST, TOKENS)
            .describe("Local Hugging Face model directory (tokenizer.json, tokenizer_config.json, optional "
                    + "chat_template.jinja) whose chat template and tokenizer give the engine's own prompt tokens; "
                    + "MODEL=DIR per served model, a bare DIR for every other model.");
    public static final CaravanFlag TOKENIZER_PATH = row("--tokenizer-path", "caravan.tokens.tokenizer-path", LIST,
            TOKENS)
            .describe("Tokenizer directory or tokenizer.json when it is not the model directory's (SGLang's "
                    + "--tokenizer-path); MODEL=PATH per model, a bare PATH for every other model.");
    public static final CaravanFlag CHAT_TEMPLATE = row("--chat-template", "caravan.tokens.chat-template", LIST,
            TOKENS)
            .describe("Jinja file overriding the model's chat template, as the engine's --chat-template; "
                    + "MODEL=FILE per model, a bare FILE for every other model.");
    public static final CaravanFlag CHAT_TEMPLATE_CONTENT_FORMAT = row("--chat-template-content-format",
            "caravan.tokens.chat-template-content-format", STRING, TOKENS)
            .defaultValue(TokensConfig.DEFAULT_CONTENT_FORMAT).oneOf(Choices.of("auto", "string", "openai"))
            .describe("Message content given to chat templates as one string or as OpenAI parts; 'auto' detects it "
                    + "from the template as vLLM does (vLLM's flag of the same name).");
    public static final CaravanFlag TOKENS_SOURCE = row("--tokens-source", "caravan.tokens.source", STRING, TOKENS)
            .defaultValue(TokensConfig.DEFAULT_SOURCE.wireName())
            .oneOf(Choices.of(Arrays.stream(TokensConfig.Source.values()).map(TokensConfig.Source::wireName)
                    .toList()))
            .describe("Where prompt tokens come from: 'local' (the model's template and tokenizer here), 'engine' "
                    + "(a worker's /tokenize, falling back to local), 'off', or 'auto' (local for models with a "
                    + "--model-path or --tokenizer-path, else off).");
    public static final CaravanFlag TOKENS_ENGINE = row("--tokens-engine", "caravan.tokens.engine", STRING, TOKENS)
            .defaultValue(TokensConfig.DEFAULT_ENGINE.wireName())
            .oneOf(Choices.of(Arrays.stream(dev.caravan.tokens.EngineDialect.values())
                    .map(dev.caravan.tokens.EngineDialect::wireName).toList()))
            .describe("The engines behind the gateway, 'vllm' or 'sglang': whose chat preprocessing the local "
                    + "rendering reproduces and whose /tokenize API the engine source calls.");
    public static final CaravanFlag TOKENS_ENGINE_TIMEOUT_MS = row("--tokens-engine-timeout-ms",
            "caravan.tokens.engine-timeout-ms", LONG, TOKENS)
            .defaultValue(TokensConfig.DEFAULT_ENGINE_TIMEOUT.toMillis()).range(1, MAX_MILLIS)
            .describe("Longest wait for a worker's /tokenize before the request is routed on local tokens (or "
                    + "none), in milliseconds.");
    public static final CaravanFlag TOKENS_CACHE_BYTES = row("--tokens-cache-bytes", "caravan.tokens.cache-bytes",
            LONG, TOKENS)
            .defaultValue(TokensConfig.DEFAULT_CACHE_BYTES).min(0)
            .describe("Bound, in estimated heap bytes, of the cache of chat prompt chunks' token ids (system "
                    + "prompts and earlier turns are not encoded again; least recently used first out); 0: encode "
                    + "every prompt whole.");
    public static final CaravanFlag LORA_ADAPTERS = row("--lora-adapters", "caravan.tokens.lora-adapters", LIST,
            TOKENS)
            .describe("LoRA adapters served under their own model name, as ADAPTER=BASE_MODEL: requests naming "
                    + "ADAPTER carry it as their LoRA key and are tokenized with BASE_MODEL's tokenizer.");

    // ---- Metrics, tracing and logs (docs/observability.md) ---------------------------------------------------------
    public static final CaravanFlag PROMETHEUS_PORT = row("--prometheus-port", "caravan.prometheus.port", INT,
            OBSERVABILITY)
            .defaultValue(GatewayConfig.DEFAULT_PROMETHEUS_PORT).special("-1", "none").range(0, 65535)
            .describe("Port of the metrics listener (GET /metrics in Prometheus text, every series, no key: the scrape "
                    + "target, to be reachable by the monitoring system only); 0 picks a free one; -1: no metrics "
                    + "listener.");
    public static final CaravanFlag PROMETHEUS_HOST = row("--prometheus-host", "caravan.prometheus.host", STRING,
            OBSERVABILITY)
            .defaultValue(GatewayConfig.DEFAULT_PROMETHEUS_HOST)
            .describe("Address the metrics listener binds.");
    public static final CaravanFlag PORT_METRICS = row("--port-metrics", "caravan.port-metrics", STRING,
            OBSERVABILITY)
            .defaultValue(CheckMetricsAccessProcessor.GUARDED)
            .oneOf(CheckMetricsAccessProcessor.GUARDED, CheckMetricsAccessProcessor.OFF)
            .describe("GET /metrics on --port (SGLang serves metrics only on the metrics listener): 'guarded' (with "
                    + "--admin-api-key or --api-key the scrape must send one of them, else 401; per-tenant series are "
                    + "left out) or 'off' (404). The metrics listener serves every series, without a key.");
    public static final CaravanFlag PROMETHEUS_DURATION_BUCKETS = row("--prometheus-duration-buckets",
            "caravan.prometheus.duration-buckets", LIST, OBSERVABILITY)
            .pattern("\\d+(\\.\\d+)?([eE][-+]?\\d+)?", "positive numbers of seconds")
            .describe("Bucket bounds, in seconds, of the request-duration and time-to-first-byte histograms "
                    + "(caravan_* and SGLang's smg_*); empty: SGLang's 0.001 to 240 s.");
    public static final CaravanFlag ENABLE_TRACE = row("--enable-trace", "caravan.trace.enabled", SWITCH,
            OBSERVABILITY)
            .defaultValue(false)
            .describe("Export OpenTelemetry traces: one span per request with child spans for worker selection, each "
                    + "attempt and the P/D legs; W3C traceparent is sent to the engines.");
    public static final CaravanFlag OTLP_TRACES_ENDPOINT = row("--otlp-traces-endpoint",
            "caravan.trace.otlp-endpoint", STRING, OBSERVABILITY)
            .defaultValue(GatewayConfig.DEFAULT_OTLP_TRACES_ENDPOINT)
            .describe("Where spans go: host:port or http://host:port (OTLP over gRPC, SGLang's form), or a URL "
                    + "ending in /v1/traces (OTLP over HTTP, protobuf).");
    public static final CaravanFlag LOG_DIR = row("--log-dir", "caravan.log-dir", STRING, OBSERVABILITY)
            .differs("the file is caravan.log (SGLang: smg); an application embedding the gateway keeps its own "
                    + "logging")
            .describe("./caravan run: also write the log to DIR/caravan.log, rolled over daily.");

    public static final CaravanFlag DECISION_QUALITY = row("--decision-quality", "caravan.decision-quality.enabled",
            SWITCH, OBSERVABILITY)
            .defaultValue(false)
            .describe("Per policy, count the prefix tokens the chosen worker held, the most any healthy worker held, "
                    + "and the cached_tokens the engine reported (caravan_decision_*, docs/observability.md).");
    public static final CaravanFlag DECISION_QUALITY_WARN_BELOW = row("--decision-quality-warn-below",
            "caravan.decision-quality.warn-below", DOUBLE, OBSERVABILITY)
            .defaultValue(DecisionQualityConfig.DEFAULT_WARN_BELOW).range(0.0, 1.0)
            .describe("--decision-quality: warn (at most once a minute per policy) when captured / reachable prefix "
                    + "tokens over the window drops below this; 0 never warns.");
    public static final CaravanFlag DECISION_QUALITY_WINDOW = row("--decision-quality-window",
            "caravan.decision-quality.window", INT, OBSERVABILITY)
            .defaultValue(DecisionQualityConfig.DEFAULT_WINDOW).range(1, 1_000_000)
            .describe("--decision-quality: requests whose engine reported cached_tokens that the ratio is taken over.");

    // ---- TLS (docs/sglang-compat.md) -------------------------------------------------------------------------------
    public static final CaravanFlag TLS_CERT_PATH = row("--tls-cert-path", "caravan.tls.cert-path", STRING, TLS)
            .describe("PEM certificate (chain) of the gateway's HTTPS listener on --port; with --tls-key-path.");
    public static final CaravanFlag TLS_KEY_PATH = row("--tls-key-path", "caravan.tls.key-path", STRING, TLS)
            .describe("PEM private key (PKCS#8 or PKCS#1) of the HTTPS listener.");
    public static final CaravanFlag CLIENT_CERT_PATH = row("--client-cert-path", "caravan.tls.client-cert-path",
            STRING, TLS)
            .describe("PEM certificate the gateway presents to https:// workers (mTLS): inference, control calls and "
                    + "health probes; with --client-key-path.");
    public static final CaravanFlag CLIENT_KEY_PATH = row("--client-key-path", "caravan.tls.client-key-path",
            STRING, TLS)
            .describe("PEM private key of the client certificate.");
    public static final CaravanFlag CA_CERT_PATHS = row("--ca-cert-paths", "caravan.tls.ca-cert-paths", LIST, TLS)
            .describe("PEM CA certificates that https:// workers' certificates must chain to (unset: the JVM's "
                    + "trusted CAs).");

    private CaravanFlags() {
    }

    /** Starts a row; its {@code describe(...)} adds it to the table, whose order is the declaration order. */
    static CaravanFlag.Builder row(String flag, String key, FlagType type, String section) {
        return new CaravanFlag.Builder(flag, key, type, section, CaravanFlags::add);
    }

    /** Starts a policy option row: flag {@code --<option>}, key {@code caravan.policy.<option>}. */
    static CaravanFlag.Builder option(String option, FlagType type, String section) {
        return row("--" + option, GatewayConfig.POLICY_PREFIX + option, type, section);
    }

    private static void add(CaravanFlag f) {
        for (CaravanFlag existing : ROWS) {
            boolean sameName = f.names().stream().anyMatch(existing::answersTo)
                    || existing.names().stream().anyMatch(f::answersTo);
            if (sameName || existing.key().equals(f.key())) {
                throw new IllegalStateException("duplicate configuration row " + f.flag() + " / " + f.key());
            }
        }
        ROWS.add(f);
    }

    private static Choices policyNames() {
        Choices names = Choices.of(PolicyName.canonicalNames());
        for (PolicyName p : PolicyName.values()) {
            for (String alias : p.aliases()) {
                names = names.withAlias(alias, p.wireName());
            }
        }
        return names;
    }

    /** Any policy name or alias, for list flags (a list's elements are checked one by one against a pattern). */
    private static String policyNamePattern() {
        List<String> names = new ArrayList<>(PolicyName.canonicalNames());
        for (PolicyName p : PolicyName.values()) {
            names.addAll(p.aliases());
        }
        return "(?i)(?:" + String.join("|", names) + ")";
    }

    static {
        SglangOnlyFlags.load(); // its rows come last, grouped by what Caravan does with them
    }

    /** Every row, in declaration order. */
    public static List<CaravanFlag> all() {
        return Collections.unmodifiableList(ROWS);
    }

    public static Optional<CaravanFlag> byFlag(String flag) {
        return ROWS.stream().filter(f -> f.answersTo(flag)).findFirst();
    }

    public static Optional<CaravanFlag> byKey(String key) {
        return ROWS.stream().filter(f -> f.key().equals(key)).findFirst();
    }

    /** Rows grouped by section, sections in first-declaration order. */
    public static Map<String, List<CaravanFlag>> bySection() {
        Map<String, List<CaravanFlag>> out = new LinkedHashMap<>();
        for (CaravanFlag f : ROWS) {
            out.computeIfAbsent(f.section(), s -> new ArrayList<>()).add(f);
        }
        return out;
    }
}
