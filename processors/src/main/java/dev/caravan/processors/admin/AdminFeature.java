package dev.caravan.processors.admin;

import java.util.List;

import dev.caravan.policies.WorkerRegistry;
import dev.caravan.processors.auth.CheckAdminKeyProcessor;
import dev.caravan.processors.config.CaravanFlag;
import dev.caravan.processors.control.ApplyEngineLoadsProcessor;
import dev.caravan.processors.control.MergeModelsProcessor;
import dev.caravan.processors.control.ModelFromPathProcessor;
import dev.caravan.processors.control.PlanControlCallsProcessor;
import dev.caravan.processors.control.PlanControlCallsProcessor.Scope;
import dev.caravan.processors.control.RetrieveModelProcessor;
import dev.caravan.processors.control.SummarizeLoadsProcessor;
import dev.caravan.processors.feature.Feature;
import dev.caravan.processors.feature.Wiring;

/**
 * The admin API (admin.camel.yaml): the admin key that guards it ({@code --admin-api-key}, else {@code --api-key}),
 * worker management (register, list, get, update and remove workers, and SGLang's legacy URL-based calls), the model
 * list merged from the healthy workers' {@code /v1/models} ({@code GET /v1/models[/{model}]}) and the engines' loads
 * ({@code GET /get_loads}, {@code /v1/loads}); the last two fan out over the control plane
 * ({@code direct:call-workers}).
 */
public final class AdminFeature implements Feature {

    // ---- bean names (admin.camel.yaml) ------------------------------------------------------------------------------

    public static final String REGISTER_WORKER = "registerWorker";
    public static final String LIST_WORKERS = "listWorkers";
    public static final String GET_WORKER = "getWorker";
    public static final String UPDATE_WORKER = "updateWorker";
    public static final String REMOVE_WORKER = "removeWorker";
    public static final String ADD_WORKER_BY_URL = "addWorkerByUrl";
    public static final String REMOVE_WORKER_BY_URL = "removeWorkerByUrl";
    public static final String LIST_WORKER_URLS = "listWorkerUrls";
    public static final String CHECK_ADMIN_KEY = "checkAdminKey";
    public static final String PLAN_LIST_MODELS = "planListModels";
    public static final String MERGE_MODELS = "mergeModels";
    public static final String MODEL_FROM_PATH = "modelFromPath";
    public static final String RETRIEVE_MODEL = "retrieveModel";
    public static final String PLAN_GET_LOADS = "planGetLoads";
    public static final String SUMMARIZE_LOADS = "summarizeLoads";

    @Override
    public List<CaravanFlag> flags() {
        return List.of();
    }

    @Override
    public void wire(Wiring w) {
        WorkerRegistry workers = w.workers();
        w.bind(REGISTER_WORKER, new RegisterWorkerProcessor(workers));
        w.bind(LIST_WORKERS, new ListWorkersProcessor(workers));
        w.bind(GET_WORKER, new GetWorkerProcessor(workers));
        w.bind(UPDATE_WORKER, new UpdateWorkerProcessor(workers));
        w.bind(REMOVE_WORKER, new RemoveWorkerProcessor(workers));
        w.bind(ADD_WORKER_BY_URL, new AddWorkerByUrlProcessor(workers));
        w.bind(REMOVE_WORKER_BY_URL, new RemoveWorkerByUrlProcessor(workers));
        w.bind(LIST_WORKER_URLS, new ListWorkerUrlsProcessor(workers));
        w.bind(CHECK_ADMIN_KEY, new CheckAdminKeyProcessor(w.config().adminApiKey(), w.config().apiKey()));
        w.bind(PLAN_LIST_MODELS, new PlanControlCallsProcessor(workers, Scope.HEALTHY, "GET", List.of("/v1/models")));
        w.bind(MERGE_MODELS, new MergeModelsProcessor(workers));
        w.bind(MODEL_FROM_PATH, new ModelFromPathProcessor());
        w.bind(RETRIEVE_MODEL, new RetrieveModelProcessor());
        w.bind(PLAN_GET_LOADS, new PlanControlCallsProcessor(workers, Scope.ALL, "GET",
                List.of(ApplyEngineLoadsProcessor.GET_LOAD)));
        w.bind(SUMMARIZE_LOADS, new SummarizeLoadsProcessor(workers));
    }
}
