package dev.caravan.processors.engine;

import static dev.caravan.processors.config.FlagType.LONG;
import static dev.caravan.processors.config.FlagType.STRING;
import static dev.caravan.processors.config.FlagType.SWITCH;

import java.util.List;

import dev.caravan.policies.EngineRuntime;
import dev.caravan.policies.WorkerRegistry;
import dev.caravan.processors.config.CaravanFlag;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.config.FlagRows;
import dev.caravan.processors.config.Sections;
import dev.caravan.processors.control.ApplyEngineProbesProcessor;
import dev.caravan.processors.control.EngineProbes;
import dev.caravan.processors.control.PlanEngineProbesProcessor;
import dev.caravan.processors.control.PlanFlushCacheProcessor;
import dev.caravan.processors.control.PlanWorkerInfoProcessor;
import dev.caravan.processors.control.RelayWorkerAnswerProcessor;
import dev.caravan.processors.feature.Feature;
import dev.caravan.processors.feature.Wiring;
import dev.caravan.processors.responses.PlanStoredResponseCallProcessor;
import dev.caravan.processors.responses.RecallPreviousResponseProcessor;
import dev.caravan.processors.responses.ResponseAffinity;
import dev.caravan.processors.routing.PinDataParallelRankProcessor;
import dev.caravan.processors.routing.ResolveEnginePathProcessor;

/**
 * Each engine's own API (docs/sglang-compat.md): what engine a worker is and how many data-parallel ranks it has
 * ({@code engine-probe} route, {@code --dp-aware}), the engine-specific paths of tokenize, detokenize and classify, the
 * data-parallel rank pin, the cache flush at each engine's endpoint, SGLang's {@code /get_server_info} and
 * {@code /get_model_info}, and the Responses API's return to the engine that stored a response (a continuation, and
 * {@code GET}, {@code DELETE} and {@code /cancel} of a stored response).
 */
public final class EngineApiFeature implements Feature {

    // ---- bean names (ingress.camel.yaml, admin.camel.yaml, control.camel.yaml) --------------------------------------

    public static final String RESOLVE_ENGINE_PATH = "resolveEnginePath";
    public static final String PIN_DATA_PARALLEL_RANK = "pinDataParallelRank";
    public static final String RECALL_PREVIOUS_RESPONSE = "recallPreviousResponse";
    public static final String PLAN_STORED_RESPONSE_CALL = "planStoredResponseCall";
    public static final String RELAY_STORED_RESPONSE = "relayStoredResponse";
    public static final String PLAN_FLUSH_CACHE = "planFlushCache";
    public static final String PLAN_SERVER_INFO = "planServerInfo";
    public static final String RELAY_SERVER_INFO = "relayServerInfo";
    public static final String PLAN_MODEL_INFO = "planModelInfo";
    public static final String RELAY_MODEL_INFO = "relayModelInfo";
    public static final String PLAN_ENGINE_PROBES = "planEngineProbes";
    public static final String APPLY_ENGINE_PROBES = "applyEngineProbes";
    /** The engine type and rank probes of new workers ({@link EngineProbes}). */
    public static final String ENGINE_PROBES = "engineProbes";
    /** Which worker stored which response ({@link ResponseAffinity}); replica sync shares it across replicas. */
    public static final String RESPONSE_AFFINITY = "responseAffinity";

    /** SGLang's spellings of the server-info endpoint, the one engines have served longest first. */
    static final List<String> SERVER_INFO_PATHS = List.of("/get_server_info", "/server_info");
    static final List<String> MODEL_INFO_PATHS = List.of("/get_model_info", "/model_info");

    private static final FlagRows ROWS = new FlagRows();

    public static final CaravanFlag BACKEND = ROWS.row("--backend", "caravan.backend",
            STRING, Sections.WORKERS).alias("--runtime")
            .defaultValue(GatewayConfig.DEFAULT_BACKEND).oneOf("sglang", "vllm", "trtllm", "openai", "anthropic")
            .refusing("Caravan routes to SGLang and vLLM engines over HTTP; gRPC runtimes and external APIs are not "
                    + "implemented", "trtllm", "openai", "anthropic")
            .describe("Engine type of workers registered without one (runtime in POST /workers) and not yet detected: "
                    + "sglang or vllm. It picks a worker's cache-flush endpoint and the engine paths of tokenize, "
                    + "detokenize and classify (docs/sglang-compat.md).");
    public static final CaravanFlag DP_AWARE = ROWS.row("--dp-aware", "caravan.dp-aware", SWITCH, Sections.WORKERS)
            .defaultValue(false)
            .differs("ranks are workers url@rank and requests are pinned to them as in SGLang, kv_aware scoring each "
                    + "rank on its own blocks; P/D prefill ranks are not passed to decode (disagg_prefill_dp_rank)")
            .describe("Route to each data-parallel rank of an engine as its own worker url@rank: the engine's dp_size "
                    + "is read from its /get_server_info at registration, and the chosen rank is pinned with "
                    + "data_parallel_rank in the body (SGLang) and the X-data-parallel-rank header (vLLM).");
    public static final CaravanFlag WORKER_STARTUP_TIMEOUT_SECS = ROWS.row("--worker-startup-timeout-secs",
            "caravan.worker-startup-timeout-secs", LONG, Sections.WORKERS)
            .defaultValue(GatewayConfig.DEFAULT_WORKER_STARTUP_TIMEOUT_SECS).range(1, FlagRows.MAX_SECONDS)
            .differs("only --dp-aware waits for an engine (to read its ranks); every other worker is registered at "
                    + "once and serves when its health checks pass")
            .describe("--dp-aware: how long registration keeps asking a new engine for its dp_size before it "
                    + "registers the engine as one worker.");
    public static final CaravanFlag WORKER_STARTUP_CHECK_INTERVAL = ROWS.row("--worker-startup-check-interval",
            "caravan.worker-startup-check-interval", LONG, Sections.WORKERS)
            .defaultValue(GatewayConfig.DEFAULT_WORKER_STARTUP_CHECK_INTERVAL_SECS).range(1, FlagRows.MAX_SECONDS)
            .differs("only --dp-aware waits for an engine; SGLang's load monitor also ran at this interval, "
                    + "Caravan's runs at --load-check-interval")
            .describe("--dp-aware: seconds between two attempts to read a new engine's dp_size.");

    @Override
    public List<CaravanFlag> flags() {
        return ROWS.all();
    }

    @Override
    public void wire(Wiring w) {
        GatewayConfig config = w.config();
        WorkerRegistry workers = w.workers();
        // the engine type of workers neither registered with one nor detected
        EngineRuntime fallback = EngineRuntime.parse(config.get(BACKEND));
        EngineProbes probes = new EngineProbes(config.getBoolean(DP_AWARE),
                config.getSeconds(WORKER_STARTUP_CHECK_INTERVAL), config.getSeconds(WORKER_STARTUP_TIMEOUT_SECS),
                System::nanoTime);
        workers.addListener(probes);
        workers.all().forEach(probes::onWorkerAdded);
        w.bind(ENGINE_PROBES, probes);
        w.bind(PLAN_ENGINE_PROBES, new PlanEngineProbesProcessor(probes));
        w.bind(APPLY_ENGINE_PROBES, new ApplyEngineProbesProcessor(workers, probes));
        w.bind(RESOLVE_ENGINE_PATH, new ResolveEnginePathProcessor(fallback));
        w.bind(PIN_DATA_PARALLEL_RANK, new PinDataParallelRankProcessor(fallback));
        w.bind(PLAN_FLUSH_CACHE, new PlanFlushCacheProcessor(workers, fallback));
        w.bind(PLAN_SERVER_INFO, new PlanWorkerInfoProcessor(workers, fallback, SERVER_INFO_PATHS));
        w.bind(RELAY_SERVER_INFO, new RelayWorkerAnswerProcessor(SERVER_INFO_PATHS));
        w.bind(PLAN_MODEL_INFO, new PlanWorkerInfoProcessor(workers, fallback, MODEL_INFO_PATHS));
        w.bind(RELAY_MODEL_INFO, new RelayWorkerAnswerProcessor(MODEL_INFO_PATHS));
        ResponseAffinity affinity = new ResponseAffinity(ResponseAffinity.DEFAULT_MAX_ENTRIES,
                ResponseAffinity.DEFAULT_TTL, System::nanoTime);
        w.bind(RESPONSE_AFFINITY, affinity);
        w.bind(RECALL_PREVIOUS_RESPONSE, new RecallPreviousResponseProcessor(affinity));
        w.bind(PLAN_STORED_RESPONSE_CALL, new PlanStoredResponseCallProcessor(affinity, workers));
        w.bind(RELAY_STORED_RESPONSE, new RelayWorkerAnswerProcessor(List.of()));
    }
}
