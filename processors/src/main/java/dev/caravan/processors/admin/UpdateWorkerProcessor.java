package dev.caravan.processors.admin;

import java.util.LinkedHashMap;
import java.util.Map;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;

import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerRegistry;
import dev.caravan.processors.Json;

/**
 * Admin step {@code updateWorker} ({@code PUT /workers/{id}}): changes {@code priority}, {@code cost}, {@code labels},
 * {@code api_key} and the health-check fields in place (identity fields such as the URL cannot change: remove and
 * re-add). 202, or 404/400.
 */
public final class UpdateWorkerProcessor implements Processor {

    private final WorkerRegistry registry;

    public UpdateWorkerProcessor(WorkerRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void process(Exchange exchange) {
        Worker worker = WorkerById.find(registry, exchange);
        WorkerJson.update(worker, Json.requestObject(exchange));
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("status", "accepted");
        body.put("worker_id", worker.id());
        body.put("message", "Worker updated");
        Json.respond(exchange, 202, body);
    }
}
