package dev.caravan.gateway;

/**
 * The registry names of the beans the gateway's assembler binds itself (a feature that wires its own beans names them
 * on its feature class, e.g. {@code PdFeature.PD_AGGREGATION}): the YAML routes reference route steps by these names
 * ({@code process: {ref: beginAttempts}}, {@code aggregationStrategy: "#collectControlResults"}), so a name is written
 * once here and used by the {@code *Beans} classes that bind it. {@code RouteReferencesTest} parses every built-in route file and
 * fails when a {@code ref:} or {@code #bean} names a bean no configuration binds — a renamed bean or a mistyped ref
 * breaks the build, not the first request. Optional modules name their own beans (Kubernetes discovery:
 * {@code DiscoveryFeature}).
 */
public final class BeanNames {

    // ---- shared objects (looked up by type or by Camel components, referenced by no route) ------------------------

    /** The Micrometer registry; camel-micrometer(-prometheus) looks it up by this name. */
    public static final String METRICS_REGISTRY = "metricsRegistry";
    public static final String GATEWAY_CONFIG = "gatewayConfig";
    public static final String WORKER_REGISTRY = "workerRegistry";
    public static final String POLICY_REGISTRY = "policyRegistry";
    public static final String GATEWAY_METRICS = "gatewayMetrics";
    public static final String UPSTREAM_CLIENT = "upstreamClient";

    // ---- request path (ingress.camel.yaml) ----------------------------------------------------------------------

    public static final String ADMIT_REQUEST = "admitRequest";
    public static final String BEGIN_ATTEMPTS = "beginAttempts";
    public static final String DECIDE_RETRY = "decideRetry";
    public static final String AWAIT_BACKOFF = "awaitBackoff";

    // ---- errors (errors.camel.yaml) ----------------------------------------------------------------------------


    // ---- admin API (admin.camel.yaml) --------------------------------------------------------------------------

    public static final String CHECK_ADMIN_KEY = "checkAdminKey";
    public static final String PLAN_HEALTH_GENERATE = "planHealthGenerate";
    public static final String SUMMARIZE_HEALTH_GENERATE = "summarizeHealthGenerate";
    public static final String PLAN_LIST_MODELS = "planListModels";
    public static final String MERGE_MODELS = "mergeModels";
    public static final String MODEL_FROM_PATH = "modelFromPath";
    public static final String RETRIEVE_MODEL = "retrieveModel";
    public static final String PLAN_GET_LOADS = "planGetLoads";
    public static final String SUMMARIZE_LOADS = "summarizeLoads";
    public static final String SUMMARIZE_FLUSH_CACHE = "summarizeFlushCache";

    // ---- control plane (control.camel.yaml) --------------------------------------------------------------------

    public static final String PREPARE_CONTROL_CALL = "prepareControlCall";
    public static final String CALL_WORKER = "callWorker";
    public static final String RECORD_CONTROL_FAILURE = "recordControlFailure";
    public static final String CHECK_CONTROL_ANSWER = "checkControlAnswer";
    /** Creates and removes the per-worker control routes ({@code worker-control} routeTemplate). */
    public static final String WORKER_CONTROL_ROUTES = "workerControlRoutes";
    /** The {@code direct:call-workers} split's aggregation strategy. */
    public static final String COLLECT_CONTROL_RESULTS = "collectControlResults";
    public static final String PLAN_LOAD_POLL = "planLoadPoll";
    public static final String APPLY_ENGINE_LOADS = "applyEngineLoads";
    public static final String RUN_MAINTENANCE = "runMaintenance";

    // ---- health checks, breakers, admission (health.camel.yaml, docs/reliability.md) ---------------------------

    public static final String PLAN_HEALTH_CHECKS = "planHealthChecks";
    public static final String PROBE_WORKERS = "probeWorkers";
    public static final String APPLY_HEALTH_RESULTS = "applyHealthResults";
    public static final String HEALTH_CHECKER = "healthChecker";
    public static final String WORKER_BREAKERS = "workerBreakers";
    public static final String ADMISSION_CONTROLLER = "admissionController";

    // ---- prefill/decode disaggregation (pd.camel.yaml) ---------------------------------------------------------


    // ---- KV events (kv-events.camel.yaml, docs/kv-events.md) ---------------------------------------------------

    public static final String DECODE_KV_BATCH = "decodeKvBatch";
    public static final String APPLY_KV_EVENTS = "applyKvEvents";
    public static final String CHECK_KV_PUBLISHERS = "checkKvPublishers";
    public static final String PLAN_KV_CAPACITY_POLL = "planKvCapacityPoll";
    public static final String APPLY_KV_CAPACITY = "applyKvCapacity";
    public static final String KV_BLOCK_INDEX = "kvBlockIndex";
    public static final String KV_PARITY_TRACKER = "kvParityTracker";
    public static final String KV_EVENT_INGESTOR = "kvEventIngestor";
    public static final String KV_ROUTE_MANAGER = "kvRouteManager";
    public static final String KV_METRICS = "kvMetrics";

    private BeanNames() {
    }
}
