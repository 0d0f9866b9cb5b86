package dev.caravan.processors.admin;

import org.apache.camel.Exchange;

import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerRegistry;
import dev.caravan.processors.error.GatewayError;

/** Looks up the worker named by the {@code {id}} path parameter of {@code /workers/{id}}; 404 when unknown. */
final class WorkerById {

    /** The path parameter platform-http exposes as a header. */
    static final String ID_HEADER = "id";

    private WorkerById() {
    }

    static Worker find(WorkerRegistry registry, Exchange exchange) {
        String id = exchange.getIn().getHeader(ID_HEADER, String.class);
        if (id == null || id.isBlank()) {
            throw GatewayError.WORKER_NOT_FOUND.exception("worker id is missing");
        }
        return registry.get(id).orElseThrow(() -> GatewayError.WORKER_NOT_FOUND.exception("no worker with id " + id));
    }
}
