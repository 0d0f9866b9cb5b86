package dev.caravan.gateway;

import java.util.List;
import java.util.Map;

import dev.caravan.policies.EngineRuntime;
import dev.caravan.policies.WorkerRegistry;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.control.ApplyEngineProbesProcessor;
import dev.caravan.processors.control.EngineApiFeature;
import dev.caravan.processors.control.EngineProbes;
import dev.caravan.processors.control.PlanEngineProbesProcessor;
import dev.caravan.processors.control.PlanFlushCacheProcessor;
import dev.caravan.processors.control.PlanWorkerInfoProcessor;
import dev.caravan.processors.control.RelayWorkerAnswerProcessor;
import dev.caravan.processors.responses.PlanStoredResponseCallProcessor;
import dev.caravan.processors.responses.RecallPreviousResponseProcessor;
import dev.caravan.processors.responses.ResponseAffinity;
import dev.caravan.processors.routing.PinDataParallelRankProcessor;
import dev.caravan.processors.routing.ResolveEnginePathProcessor;

/**
 * The beans that speak each engine's own API (docs/sglang-compat.md): what engine a worker is and how many
 * data-parallel ranks it has ({@code engine-probe} route, {@code --dp-aware}), the engine-specific paths of tokenize,
 * detokenize and classify, the data-parallel rank pin, the cache flush at each engine's endpoint, SGLang's
 * {@code /get_server_info} and {@code /get_model_info}, and the Responses API's return to the engine that stored a
 * response (a continuation, and {@code GET}, {@code DELETE} and {@code /cancel} of a stored response).
 */
final class EngineApiBeans {

    /** SGLang's spellings of the server-info endpoint, the one engines have served longest first. */
    static final List<String> SERVER_INFO_PATHS = List.of("/get_server_info", "/server_info");
    static final List<String> MODEL_INFO_PATHS = List.of("/get_model_info", "/model_info");

    private EngineApiBeans() {
    }

    /** The engine type of workers neither registered with one nor detected: {@code --backend}. */
    static EngineRuntime fallback(GatewayConfig config) {
        return EngineRuntime.parse(config.get(EngineApiFeature.BACKEND));
    }

    static void define(GatewayConfig config, WorkerRegistry workers, Map<String, Object> beans) {
        EngineRuntime fallback = fallback(config);
        EngineProbes probes = new EngineProbes(config.getBoolean(EngineApiFeature.DP_AWARE),
                config.getSeconds(EngineApiFeature.WORKER_STARTUP_CHECK_INTERVAL),
                config.getSeconds(EngineApiFeature.WORKER_STARTUP_TIMEOUT_SECS), System::nanoTime);
        workers.addListener(probes);
        workers.all().forEach(probes::onWorkerAdded);
        beans.put(BeanNames.ENGINE_PROBES, probes);
        beans.put(BeanNames.PLAN_ENGINE_PROBES, new PlanEngineProbesProcessor(probes));
        beans.put(BeanNames.APPLY_ENGINE_PROBES, new ApplyEngineProbesProcessor(workers, probes));
        beans.put(BeanNames.RESOLVE_ENGINE_PATH, new ResolveEnginePathProcessor(fallback));
        beans.put(BeanNames.PIN_DATA_PARALLEL_RANK, new PinDataParallelRankProcessor(fallback));
        beans.put(BeanNames.PLAN_FLUSH_CACHE, new PlanFlushCacheProcessor(workers, fallback));
        beans.put(BeanNames.PLAN_SERVER_INFO, new PlanWorkerInfoProcessor(workers, fallback, SERVER_INFO_PATHS));
        beans.put(BeanNames.RELAY_SERVER_INFO, new RelayWorkerAnswerProcessor(SERVER_INFO_PATHS));
        beans.put(BeanNames.PLAN_MODEL_INFO, new PlanWorkerInfoProcessor(workers, fallback, MODEL_INFO_PATHS));
        beans.put(BeanNames.RELAY_MODEL_INFO, new RelayWorkerAnswerProcessor(MODEL_INFO_PATHS));
        ResponseAffinity affinity = new ResponseAffinity(ResponseAffinity.DEFAULT_MAX_ENTRIES,
                ResponseAffinity.DEFAULT_TTL, System::nanoTime);
        beans.put(BeanNames.RESPONSE_AFFINITY, affinity);
        beans.put(BeanNames.RECALL_PREVIOUS_RESPONSE, new RecallPreviousResponseProcessor(affinity));
        beans.put(BeanNames.PLAN_STORED_RESPONSE_CALL, new PlanStoredResponseCallProcessor(affinity, workers));
        beans.put(BeanNames.RELAY_STORED_RESPONSE, new RelayWorkerAnswerProcessor(List.of()));
    }
}
