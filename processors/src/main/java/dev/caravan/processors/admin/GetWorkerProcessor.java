package dev.caravan.processors.admin;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;

import dev.caravan.policies.WorkerRegistry;
import dev.caravan.processors.Json;

/** Admin step {@code getWorker} ({@code GET /workers/{id}}): the worker's {@code WorkerInfo}, or 404. */
public final class GetWorkerProcessor implements Processor {

    private final WorkerRegistry registry;

    public GetWorkerProcessor(WorkerRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void process(Exchange exchange) {
        Json.respond(exchange, 200, WorkerJson.info(WorkerById.find(registry, exchange)));
    }
}
