package dev.caravan.processors.health;

import java.util.ArrayList;
import java.util.List;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;

import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerRegistry;
import dev.caravan.policies.WorkerRole;
import dev.caravan.processors.control.ControlCall;
import dev.caravan.processors.error.GatewayError;

/**
 * Step {@code planHealthGenerate} of {@code GET /health_generate}: a real generation on one available worker of every
 * role the fleet has — a regular worker, and in P/D mode a prefill <em>and</em> a decode worker (both legs, as
 * SGLang's mini load balancer fans it out) — each calling the engine's own {@code /health_generate}. The body becomes the
 * {@code List<ControlCall>} for {@code direct:call-workers}; {@code summarizeHealthGenerate} answers. No available worker
 * for a role the fleet has (or no worker at all) → 503 {@code no_available_workers}.
 */
public final class PlanHealthGenerateProcessor implements Processor {

    /** The engines' endpoint (SGLang; the simulator implements it). */
    public static final String PATH = "/health_generate";

    private final WorkerRegistry registry;

    public PlanHealthGenerateProcessor(WorkerRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void process(Exchange exchange) {
        List<ControlCall> calls = new ArrayList<>();
        for (WorkerRole role : WorkerRole.values()) {
            List<Worker> ofRole = registry.list(null, role);
            if (ofRole.isEmpty()) {
                continue;
            }
            Worker chosen = ofRole.stream().filter(Worker::isAvailable).findFirst().orElseThrow(() ->
                    GatewayError.NO_AVAILABLE_WORKERS.exception("no available " + role.wireName() + " worker"));
            calls.add(new ControlCall(chosen, "GET", PATH, null));
        }
        if (calls.isEmpty()) {
            throw GatewayError.NO_AVAILABLE_WORKERS.exception("No workers are registered");
        }
        exchange.getMessage().setBody(calls);
    }
}
