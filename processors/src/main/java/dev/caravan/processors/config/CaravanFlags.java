package dev.caravan.processors.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.caravan.policies.BucketConfig;
import dev.caravan.policies.CacheAwareConfig;
import dev.caravan.policies.ManualConfig;
import dev.caravan.policies.PolicyConfig;
import dev.caravan.policies.PrefixHashConfig;
import dev.caravan.processors.discovery.DiscoveryConfig;

/**
 * The configuration table: every command-line flag of {@code ./caravan run}, the {@code caravan.*} property it sets and
 * its default. Flags are SGLang's {@code sglang_router.launch_router} names where SGLang has one, so an SGLang command line
 * works verbatim; Caravan-only settings follow the same style.
 *
 * <p><b>Adding a setting is one row</b>: declare a {@code public static final CaravanFlag} below with {@link #row}, take
 * the default from a named constant, and read it where it is used with {@code config.getInt(CaravanFlags.X)} (or
 * {@code getSeconds}, {@code getList}, {@code getGroups}, ...). Parsing ({@link ArgsParser}), environment variables,
 * validation and {@code docs/configuration.md} (checked by {@code ConfigurationDocTest}; regenerate with
 * {@code mvn -pl processors test -Dtest=ConfigurationDocTest -Dcaravan.docs.write=true}) follow automatically.
 * Rows keep their declaration order in the docs.
 */
public final class CaravanFlags {

    private static final List<CaravanFlag> ROWS = new ArrayList<>();

    static final String SERVER = "Server";
    static final String WORKERS = "Workers";
    static final String POLICY = "Routing policy";
    static final String UPSTREAM = "Upstream (data plane)";
    static final String CONTROL = "Control plane";
    static final String DISCOVERY = "Kubernetes service discovery";

    // ---- Server -------------------------------------------------------------------------------------------------
    public static final CaravanFlag HOST = row("--host", "caravan.host", GatewayConfig.DEFAULT_HOST,
            FlagType.STRING, SERVER, "Address the gateway's HTTP server binds.");
    public static final CaravanFlag PORT = row("--port", "caravan.port", GatewayConfig.DEFAULT_PORT,
            FlagType.INT, SERVER, "Port of the gateway's HTTP server (inference, admin API and /metrics); 0 picks a free one.");
    public static final CaravanFlag MAX_PAYLOAD_SIZE = row("--max-payload-size", "caravan.max-payload-size",
            GatewayConfig.DEFAULT_MAX_PAYLOAD_SIZE, FlagType.LONG, SERVER,
            "Largest request body accepted, in bytes; larger bodies get 413.");
    public static final CaravanFlag API_KEY = row("--api-key", "caravan.api-key", "", FlagType.STRING, SERVER,
            "When set, clients must send 'Authorization: Bearer <key>' (else 401), and workers registered without "
                    + "their own api_key are called with it.");
    public static final CaravanFlag LOG_LEVEL = row("--log-level", "caravan.log-level", GatewayConfig.DEFAULT_LOG_LEVEL,
            FlagType.STRING, SERVER, "Log level of the gateway: debug, info, warn or error.");
    public static final CaravanFlag REQUEST_ID_HEADERS = row("--request-id-headers", "caravan.request-id-headers",
            GatewayConfig.DEFAULT_REQUEST_ID_HEADERS, FlagType.LIST, SERVER,
            "Request headers whose value is taken as the request id (first present wins); otherwise one is generated. "
                    + "It is forwarded as X-Request-Id.");
    public static final CaravanFlag DECISION_HEADERS = row("--decision-headers", "caravan.decision-headers",
            GatewayConfig.DEFAULT_DECISION_HEADERS, FlagType.BOOLEAN, SERVER,
            "Add X-Caravan-Worker and X-Caravan-Decision (policy:branch) to inference responses.");
    public static final CaravanFlag SERVER_EVENT_LOOPS = row("--server-event-loops", "caravan.server-event-loops",
            GatewayConfig.DEFAULT_SERVER_EVENT_LOOPS, FlagType.INT, SERVER,
            "Vert.x event loops that accept and serve connections (each with its upstream connections); 0 = one per core.");
    public static final CaravanFlag DISPATCH = row("--dispatch", "caravan.dispatch", GatewayConfig.DEFAULT_DISPATCH,
            FlagType.STRING, SERVER,
            "Where a request's route runs until it goes asynchronous: 'event-loop' (the connection's event loop; no thread "
                    + "hop; every step must be non-blocking, as the built-in ones are) or 'worker' (a Vert.x worker thread, "
                    + "released once the request is forwarded; for routes with blocking steps).");
    public static final CaravanFlag ROUTES = row("--routes", "caravan.routes", "", FlagType.STRING, SERVER,
            "Directory of *.camel.yaml routes to load instead of the built-in ones; edits there reload live.");
    public static final CaravanFlag CONFIG = row("--config", "caravan.config", "", FlagType.STRING, SERVER,
            "Properties file with caravan.* (and camel.*) settings; see 'Precedence'.");

    // ---- Workers ------------------------------------------------------------------------------------------------
    public static final CaravanFlag WORKER_URLS = row("--worker-urls", "caravan.worker-urls", "", FlagType.LIST,
            WORKERS, "Engine URLs registered at start (space-separated on the command line, comma-separated as a property).");

    // ---- Policy -------------------------------------------------------------------------------------------------
    public static final CaravanFlag POLICY_NAME = row("--policy", "caravan.policy.name", GatewayConfig.DEFAULT_POLICY,
            FlagType.STRING, POLICY, "Load-balancing policy: random, round_robin, power_of_two, cache_aware, bucket, "
                    + "manual, consistent_hashing or prefix_hash. One instance per model.");
    public static final CaravanFlag CACHE_THRESHOLD = policyRow(PolicyConfig.CACHE_THRESHOLD,
            CacheAwareConfig.DEFAULT_CACHE_THRESHOLD, FlagType.DOUBLE,
            "cache_aware: prefix match rate (0..1) above which a request goes to the worker holding the prefix.");
    public static final CaravanFlag BALANCE_ABS_THRESHOLD = policyRow(PolicyConfig.BALANCE_ABS_THRESHOLD,
            CacheAwareConfig.DEFAULT_BALANCE_ABS_THRESHOLD, FlagType.INT,
            "cache_aware, bucket: the imbalance guard needs max-min in-flight load above this many requests.");
    public static final CaravanFlag BALANCE_REL_THRESHOLD = policyRow(PolicyConfig.BALANCE_REL_THRESHOLD,
            CacheAwareConfig.DEFAULT_BALANCE_REL_THRESHOLD, FlagType.DOUBLE,
            "cache_aware, bucket: ... and max above min times this ratio.");
    public static final CaravanFlag EVICTION_INTERVAL = policyRow(PolicyConfig.EVICTION_INTERVAL,
            CacheAwareConfig.DEFAULT_EVICTION_INTERVAL.toSeconds(), FlagType.LONG,
            "cache_aware: seconds between tree evictions (0 disables); manual: TTL sweep interval.");
    public static final CaravanFlag MAX_TREE_SIZE = policyRow(PolicyConfig.MAX_TREE_SIZE,
            CacheAwareConfig.DEFAULT_MAX_TREE_SIZE, FlagType.LONG,
            "cache_aware: characters each worker may keep in a model's tree after eviction.");
    public static final CaravanFlag MIN_PREFIX_MATCH_CHARS = policyRow(PolicyConfig.MIN_PREFIX_MATCH_CHARS,
            CacheAwareConfig.DEFAULT_MIN_PREFIX_MATCH_CHARS, FlagType.INT,
            "cache_aware (Caravan): a match of at least this many characters is a hit whatever the rate; 0 = off.");
    public static final CaravanFlag IMBALANCE_PREFER_CACHED = policyRow(PolicyConfig.IMBALANCE_PREFER_CACHED,
            CacheAwareConfig.DEFAULT_IMBALANCE_PREFER_CACHED, FlagType.BOOLEAN,
            "cache_aware (Caravan): when the guard fires, prefer the longest cached prefix among near-least-loaded workers.");
    public static final CaravanFlag STALE_FALLBACK_MIN_LOAD = policyRow(PolicyConfig.STALE_FALLBACK_MIN_LOAD,
            CacheAwareConfig.DEFAULT_STALE_FALLBACK_MIN_LOAD, FlagType.BOOLEAN,
            "cache_aware (Caravan): when the matched worker is gone, fall back to the least loaded one.");
    public static final CaravanFlag BUCKET_ADJUST_INTERVAL = policyRow(PolicyConfig.BUCKET_ADJUST_INTERVAL,
            BucketConfig.DEFAULT_BUCKET_ADJUST_INTERVAL.toSeconds(), FlagType.LONG,
            "bucket: seconds between bucket boundary adjustments.");
    public static final CaravanFlag ASSIGNMENT_MODE = policyRow(PolicyConfig.ASSIGNMENT_MODE,
            ManualConfig.DEFAULT_ASSIGNMENT_MODE.wireName(), FlagType.STRING,
            "manual: how a new routing key picks its worker: random, min_load or min_group.");
    public static final CaravanFlag MAX_IDLE_SECS = policyRow(PolicyConfig.MAX_IDLE_SECS,
            ManualConfig.DEFAULT_MAX_IDLE.toSeconds(), FlagType.LONG,
            "manual: seconds after which an idle routing key is forgotten.");
    public static final CaravanFlag PREFIX_TOKEN_COUNT = policyRow(PolicyConfig.PREFIX_TOKEN_COUNT,
            PrefixHashConfig.DEFAULT_PREFIX_TOKEN_COUNT, FlagType.INT,
            "prefix_hash: leading tokens hashed to pick the worker.");
    public static final CaravanFlag LOAD_FACTOR = policyRow(PolicyConfig.LOAD_FACTOR,
            PrefixHashConfig.DEFAULT_LOAD_FACTOR, FlagType.DOUBLE,
            "prefix_hash: a worker above this factor times the mean load is skipped.");

    // ---- Upstream -----------------------------------------------------------------------------------------------
    public static final CaravanFlag REQUEST_TIMEOUT_SECS = row("--request-timeout-secs", "caravan.request-timeout-secs",
            GatewayConfig.DEFAULT_REQUEST_TIMEOUT_SECS, FlagType.LONG, UPSTREAM,
            "Whole-request limit for an upstream call, in seconds: 504 before the response starts, a cut stream after.");
    public static final CaravanFlag CONNECT_TIMEOUT_SECS = row("--connect-timeout-secs", "caravan.connect-timeout-secs",
            GatewayConfig.DEFAULT_CONNECT_TIMEOUT_SECS, FlagType.LONG, UPSTREAM,
            "Limit for opening a connection to a worker, in seconds (then 502).");
    public static final CaravanFlag MAX_CONNECTIONS_PER_WORKER = row("--max-connections-per-worker",
            "caravan.max-connections-per-worker", GatewayConfig.DEFAULT_MAX_CONNECTIONS_PER_WORKER, FlagType.INT,
            UPSTREAM, "HTTP/1.1 connections the gateway keeps open to each worker at most (one per concurrent request).");

    // ---- Control plane ------------------------------------------------------------------------------------------
    public static final CaravanFlag LOAD_CHECK_INTERVAL = row("--load-check-interval", "caravan.load-check-interval",
            GatewayConfig.DEFAULT_LOAD_CHECK_INTERVAL_SECS, FlagType.LONG, CONTROL,
            "Seconds between polls of each worker's /get_load and /metrics (engine queue, KV usage); 0 disables.");
    public static final CaravanFlag CONTROL_TIMEOUT_SECS = row("--control-timeout-secs", "caravan.control-timeout-secs",
            GatewayConfig.DEFAULT_CONTROL_TIMEOUT_SECS, FlagType.LONG, CONTROL,
            "Limit for one control-plane call (load poll, /flush_cache, /v1/models, /get_loads), in seconds.");

    // ---- Kubernetes service discovery (docs/kubernetes.md) --------------------------------------------------------
    public static final CaravanFlag SERVICE_DISCOVERY = row("--service-discovery", "caravan.discovery.enabled", false,
            FlagType.SWITCH, DISCOVERY, "Discover workers from Kubernetes pods: a pod is added when Running and Ready "
                    + "and drained when it stops being ready, stops matching, terminates or disappears.");
    public static final CaravanFlag SELECTOR = row("--selector", "caravan.discovery.selector", "", FlagType.LIST,
            DISCOVERY, "Labels (k=v ...) a pod must all carry to be a regular worker.");
    public static final CaravanFlag PREFILL_SELECTOR = row("--prefill-selector", "caravan.discovery.prefill-selector",
            "", FlagType.LIST, DISCOVERY, "P/D: labels (k=v ...) of prefill pods; checked before --decode-selector.");
    public static final CaravanFlag DECODE_SELECTOR = row("--decode-selector", "caravan.discovery.decode-selector",
            "", FlagType.LIST, DISCOVERY, "P/D: labels (k=v ...) of decode pods.");
    public static final CaravanFlag SERVICE_DISCOVERY_PORT = row("--service-discovery-port", "caravan.discovery.port",
            DiscoveryConfig.DEFAULT_PORT, FlagType.INT, DISCOVERY,
            "Engine port on each pod; the worker URL is http://podIP:port.");
    public static final CaravanFlag SERVICE_DISCOVERY_NAMESPACE = row("--service-discovery-namespace",
            "caravan.discovery.namespace", "", FlagType.STRING, DISCOVERY,
            "Namespace whose pods are watched; unset watches all namespaces (needs a ClusterRole).");
    public static final CaravanFlag BOOTSTRAP_PORT_ANNOTATION = row("--bootstrap-port-annotation",
            "caravan.discovery.bootstrap-port-annotation", DiscoveryConfig.DEFAULT_BOOTSTRAP_PORT_ANNOTATION,
            FlagType.STRING, DISCOVERY, "Pod annotation holding a prefill pod's KV bootstrap port.");
    public static final CaravanFlag MODEL_ANNOTATION = row("--model-annotation", "caravan.discovery.model-annotation",
            DiscoveryConfig.DEFAULT_MODEL_ANNOTATION, FlagType.STRING, DISCOVERY,
            "Pod annotation holding the model id the pod serves (absent: it serves any model).");
    public static final CaravanFlag KV_EVENTS_ANNOTATION = row("--kv-events-annotation",
            "caravan.discovery.kv-events-annotation", DiscoveryConfig.DEFAULT_KV_EVENTS_ANNOTATION, FlagType.STRING,
            DISCOVERY, "Pod annotation holding the engine's KV-event PUB endpoint (tcp://*:5557 or 5557; * becomes "
                    + "the pod IP).");
    public static final CaravanFlag KV_REPLAY_ANNOTATION = row("--kv-replay-annotation",
            "caravan.discovery.kv-replay-annotation", DiscoveryConfig.DEFAULT_KV_REPLAY_ANNOTATION, FlagType.STRING,
            DISCOVERY, "Pod annotation holding the engine's KV-event replay endpoint (tcp://*:5558 or 5558).");
    public static final CaravanFlag DISCOVERY_RESYNC_INTERVAL = row("--discovery-resync-interval",
            "caravan.discovery.resync-interval", DiscoveryConfig.DEFAULT_RESYNC_INTERVAL.toSeconds(), FlagType.LONG,
            DISCOVERY, "Seconds between full pod re-lists that reconcile the workers besides the watch; 0 disables.");

    private CaravanFlags() {
    }

    /** Declares a row; the table is this class's static fields in declaration order. */
    static CaravanFlag row(String flag, String key, Object defaultValue, FlagType type, String section,
                           String description) {
        CaravanFlag f = new CaravanFlag(flag, key, defaultValue == null ? "" : String.valueOf(defaultValue), type,
                section, description);
        for (CaravanFlag existing : ROWS) {
            if (existing.flag().equals(flag) || existing.key().equals(key)) {
                throw new IllegalStateException("duplicate configuration row " + flag + " / " + key);
            }
        }
        ROWS.add(f);
        return f;
    }

    /** A policy option row: flag {@code --<option>}, key {@code caravan.policy.<option>}. */
    static CaravanFlag policyRow(String option, Object defaultValue, FlagType type, String description) {
        return row("--" + option, GatewayConfig.POLICY_PREFIX + option, defaultValue, type, POLICY, description);
    }

    /** Every row, in declaration order. */
    public static List<CaravanFlag> all() {
        return Collections.unmodifiableList(ROWS);
    }

    public static Optional<CaravanFlag> byFlag(String flag) {
        return ROWS.stream().filter(f -> f.flag().equals(flag)).findFirst();
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
