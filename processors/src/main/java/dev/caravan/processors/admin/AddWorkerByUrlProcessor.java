package dev.caravan.processors.admin;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;

import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerRegistry;
import dev.caravan.processors.error.GatewayError;

/**
 * Admin step {@code addWorkerByUrl}: the legacy sgl-router {@code POST /add_worker?url=URL}. Registers a regular worker
 * with defaults; answers 200 {@code Successfully added worker: URL} as the old router did (400 bad URL, 409 duplicate).
 */
public final class AddWorkerByUrlProcessor implements Processor {

    private final WorkerRegistry registry;

    public AddWorkerByUrlProcessor(WorkerRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void process(Exchange exchange) {
        Worker worker;
        try {
            worker = Worker.builder(LegacyWorkerUrl.of(exchange)).build();
        } catch (IllegalArgumentException e) {
            throw GatewayError.INVALID_REQUEST.exception(e.getMessage());
        }
        try {
            registry.add(worker);
        } catch (IllegalStateException e) {
            throw GatewayError.WORKER_ALREADY_EXISTS.exception(e.getMessage());
        }
        exchange.getMessage().setHeader(Exchange.HTTP_RESPONSE_CODE, 200);
        exchange.getMessage().setHeader(Exchange.CONTENT_TYPE, "text/plain; charset=utf-8");
        exchange.getMessage().setBody("Successfully added worker: " + worker.url());
    }
}
