package dev.caravan.processors.admin;

import java.util.LinkedHashMap;
import java.util.Map;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;

import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerRegistry;
import dev.caravan.processors.Json;
import dev.caravan.processors.error.GatewayError;

/**
 * Admin step {@code registerWorker} ({@code POST /workers}): registers a worker from SGLang's {@code WorkerConfigRequest}
 * fields ({@code url}, {@code model_id}, {@code worker_type}, {@code bootstrap_port}, {@code api_key}, {@code labels},
 * {@code priority}, {@code cost}, {@code runtime} ({@code sglang} or {@code vllm}; detected when absent),
 * {@code kv_events_endpoint}, {@code kv_replay_endpoint}, and the health-check overrides
 * {@code health_check_timeout_secs}, {@code health_check_interval_secs}, {@code health_success_threshold},
 * {@code health_failure_threshold}, {@code disable_health_check}).
 *
 * <p>Registration is synchronous: when the 202 is sent the worker is already routable (SGLang queues a background job and
 * answers 202 before that; the status code and body shape are kept for compatibility). Answers 202 with
 * {@code Location: /workers/{id}}; 400 for bad fields, 409 when the URL is already registered in that role.
 */
public final class RegisterWorkerProcessor implements Processor {

    private final WorkerRegistry registry;

    public RegisterWorkerProcessor(WorkerRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void process(Exchange exchange) {
        Worker worker = WorkerJson.fromRequest(Json.requestObject(exchange));
        try {
            registry.add(worker);
        } catch (IllegalStateException e) {
            throw GatewayError.WORKER_ALREADY_EXISTS.exception(e.getMessage());
        }
        String location = "/workers/" + worker.id();
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("status", "accepted");
        body.put("worker_id", worker.id());
        body.put("url", worker.url());
        body.put("location", location);
        body.put("message", "Worker registered");
        exchange.getMessage().setHeader("Location", location);
        Json.respond(exchange, 202, body);
    }
}
