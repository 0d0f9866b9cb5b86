package dev.caravan.processors.control;

import dev.caravan.policies.Worker;
import dev.caravan.processors.ExchangeProperty;

/**
 * One control-plane HTTP call to a worker (a load poll, a cache flush, a model listing), planned by
 * {@code PlanControlCallsProcessor} and carried out by the {@code call-workers} route ({@code CallWorkerProcessor}).
 *
 * @param worker the target
 * @param method HTTP method
 * @param path   path on the worker, e.g. {@code /get_load}
 * @param body   request body, or null
 */
public record ControlCall(Worker worker, String method, String path, String body) {

    /** The call a split sub-exchange of {@code direct:call-workers} carries out. */
    public static final ExchangeProperty<ControlCall> PROPERTY =
            ExchangeProperty.of("caravanControlCall", ControlCall.class);

    /**
     * Route-visible: the id of the worker a {@code call-workers} sub-exchange calls, which picks its control route
     * ({@code toD direct:worker-control-${exchangeProperty.caravanControlWorkerId}}).
     */
    public static final ExchangeProperty<String> WORKER_ID =
            ExchangeProperty.of("caravanControlWorkerId", String.class);

    public String url() {
        return worker.engineUrl() + path;
    }
}
