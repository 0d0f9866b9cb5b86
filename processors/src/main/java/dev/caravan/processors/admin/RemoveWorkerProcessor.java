package dev.caravan.processors.admin;

import java.util.LinkedHashMap;
import java.util.Map;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;

import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerRegistry;
import dev.caravan.processors.Json;

/**
 * Admin step {@code removeWorker} ({@code DELETE /workers/{id}}): the worker gets no new requests from the moment this
 * answers; requests already on it finish normally (they hold their own lease and connection). 202, or 404.
 */
public final class RemoveWorkerProcessor implements Processor {

    private final WorkerRegistry registry;

    public RemoveWorkerProcessor(WorkerRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void process(Exchange exchange) {
        Worker worker = WorkerById.find(registry, exchange);
        registry.remove(worker.id());
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("status", "accepted");
        body.put("worker_id", worker.id());
        body.put("message", "Worker removed; " + worker.localLoad() + " request(s) in flight will finish");
        Json.respond(exchange, 202, body);
    }
}
