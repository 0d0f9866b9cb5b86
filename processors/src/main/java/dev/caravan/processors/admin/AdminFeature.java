package dev.caravan.processors.admin;

import java.util.List;

import dev.caravan.policies.WorkerRegistry;
import dev.caravan.processors.config.CaravanFlag;
import dev.caravan.processors.feature.Feature;
import dev.caravan.processors.feature.Wiring;

/**
 * The admin API's worker management (admin.camel.yaml): register, list, get, update and remove workers, and SGLang's
 * legacy URL-based calls.
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
    }
}
