package dev.caravan.processors.admin;

import java.util.Map;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;

import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerRegistry;
import dev.caravan.processors.Json;

/** Admin step {@code listWorkerUrls}: the legacy {@code GET /list_workers}, {@code {"urls":[...]}} in registration order. */
public final class ListWorkerUrlsProcessor implements Processor {

    private final WorkerRegistry registry;

    public ListWorkerUrlsProcessor(WorkerRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void process(Exchange exchange) {
        Json.respond(exchange, 200, Map.of("urls", registry.all().stream().map(Worker::url).toList()));
    }
}
