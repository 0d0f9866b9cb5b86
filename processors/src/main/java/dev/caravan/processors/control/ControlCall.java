package dev.caravan.processors.control;

import dev.caravan.policies.Worker;

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

    public String url() {
        return worker.url() + path;
    }
}
