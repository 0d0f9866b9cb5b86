package dev.caravan.processors.admission;

import java.util.Map;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;

import dev.caravan.processors.Json;

/**
 * Route step {@code rejectWhenDraining} (before {@code checkReadiness}): while the gateway drains for shutdown, readiness
 * answers 503 {@code {"status":"not ready","reason":"shutting down"}} and stops the route, so a load balancer or
 * Kubernetes stops sending new requests while in-flight ones finish.
 */
public final class RejectWhenDrainingProcessor implements Processor {

    private final AdmissionController admission;

    public RejectWhenDrainingProcessor(AdmissionController admission) {
        this.admission = admission;
    }

    @Override
    public void process(Exchange exchange) {
        if (admission.draining()) {
            Json.respond(exchange, 503, Map.of("status", "not ready", "reason", "shutting down"));
            exchange.setRouteStop(true);
        }
    }
}
