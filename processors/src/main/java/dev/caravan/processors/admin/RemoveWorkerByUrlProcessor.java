package dev.caravan.processors.admin;

import java.util.List;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;

import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerRegistry;
import dev.caravan.processors.error.GatewayError;

/**
 * Admin step {@code removeWorkerByUrl}: the legacy {@code POST /remove_worker?url=URL}. Removes every worker with that URL
 * (any role); in-flight requests finish. 200 {@code Successfully removed worker: URL}, or 404.
 */
public final class RemoveWorkerByUrlProcessor implements Processor {

    private final WorkerRegistry registry;

    public RemoveWorkerByUrlProcessor(WorkerRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void process(Exchange exchange) {
        String url = LegacyWorkerUrl.of(exchange);
        List<Worker> removed;
        try {
            removed = registry.removeByUrl(url);
        } catch (IllegalArgumentException e) {
            throw GatewayError.INVALID_REQUEST.exception(e.getMessage());
        }
        if (removed.isEmpty()) {
            throw GatewayError.WORKER_NOT_FOUND.exception("no worker with url " + url);
        }
        exchange.getMessage().setHeader(Exchange.HTTP_RESPONSE_CODE, 200);
        exchange.getMessage().setHeader(Exchange.CONTENT_TYPE, "text/plain; charset=utf-8");
        exchange.getMessage().setBody("Successfully removed worker: " + removed.get(0).url());
    }
}
