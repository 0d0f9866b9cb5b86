package dev.caravan.processors.admin;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.BooleanSupplier;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;

import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerRegistry;
import dev.caravan.policies.WorkerRole;
import dev.caravan.processors.Json;

/**
 * Admin step {@code checkReadiness} ({@code GET /readiness}, SGLang's rule): 200
 * {@code {status:"ready", healthy_workers, total_workers}} when at least one worker is healthy — in P/D mode at least one
 * healthy prefill <em>and</em> one healthy decode worker — else 503 {@code {status:"not ready", reason, ...}}.
 */
public final class ReadinessProcessor implements Processor {

    private final WorkerRegistry registry;
    private final BooleanSupplier pdMode;

    /**
     * @param registry the workers
     * @param pdMode   true when the gateway runs prefill/decode disaggregation
     */
    public ReadinessProcessor(WorkerRegistry registry, BooleanSupplier pdMode) {
        this.registry = registry;
        this.pdMode = pdMode;
    }

    @Override
    public void process(Exchange exchange) {
        int healthy = 0;
        int prefill = 0;
        int decode = 0;
        for (Worker w : registry.all()) {
            if (w.isHealthy()) {
                healthy++;
                if (w.role() == WorkerRole.PREFILL) {
                    prefill++;
                } else if (w.role() == WorkerRole.DECODE) {
                    decode++;
                }
            }
        }
        boolean ready = pdMode.getAsBoolean() ? prefill > 0 && decode > 0 : healthy > 0;
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("status", ready ? "ready" : "not ready");
        if (!ready) {
            body.put("reason", "insufficient healthy workers");
        }
        body.put("healthy_workers", healthy);
        body.put("total_workers", registry.size());
        Json.respond(exchange, ready ? 200 : 503, body);
    }
}
