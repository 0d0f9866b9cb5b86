package dev.caravan.processors.admin;

import java.util.LinkedHashMap;
import java.util.Map;

import dev.caravan.policies.EngineRuntime;
import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerHealthCheck;
import dev.caravan.policies.WorkerRole;
import dev.caravan.processors.error.GatewayError;
import dev.caravan.processors.error.GatewayException;

/**
 * The admin API's worker JSON (SGLang's {@code WorkerConfigRequest} in, {@code WorkerInfo} out). Field type errors are
 * 400 {@code invalid_request} naming the field; the API key is write-only (never returned).
 */
final class WorkerJson {

    private WorkerJson() {
    }

    /** Builds a worker from a {@code POST /workers} body. */
    static Worker fromRequest(Map<String, Object> body) {
        Object url = body.get("url");
        if (!(url instanceof String u) || u.isBlank()) {
            throw invalid("url is required and must be a string");
        }
        try {
            Worker.Builder b = Worker.builder(u)
                    .modelId(string(body, "model_id"))
                    .role(WorkerRole.parse(string(body, "worker_type")))
                    .bootstrapPort(integer(body, "bootstrap_port"))
                    .apiKey(string(body, "api_key"))
                    .kvEventsEndpoint(string(body, "kv_events_endpoint"))
                    .kvReplayEndpoint(string(body, "kv_replay_endpoint"))
                    .dataParallelSize(integer(body, "dp_size"));
            Integer priority = integer(body, "priority");
            if (priority != null) {
                b.priority(priority);
            }
            Double cost = number(body, "cost");
            if (cost != null) {
                b.cost(cost);
            }
            Map<String, String> labels = labels(body);
            if (labels != null) {
                b.labels(labels);
            }
            b.healthCheck(healthCheck(body));
            String runtime = string(body, "runtime");
            if (runtime != null) {
                b.runtime(EngineRuntime.parse(runtime));
            }
            return b.build();
        } catch (IllegalArgumentException e) {
            throw invalid(e.getMessage());
        }
    }

    /**
     * Applies a {@code PUT /workers/{id}} body: priority, cost, labels, api_key, health-check fields, runtime. Every
     * field is read and checked first, so a rejected body changes nothing.
     */
    static void update(Worker worker, Map<String, Object> body) {
        Integer priority = integer(body, "priority");
        Double cost = number(body, "cost");
        Map<String, String> labels = labels(body);
        String apiKey = string(body, "api_key");
        String runtimeName = string(body, "runtime");
        WorkerHealthCheck health;
        EngineRuntime runtime;
        try {
            health = worker.healthCheck().merge(healthCheck(body));
            runtime = runtimeName == null ? null : EngineRuntime.parse(runtimeName);
        } catch (IllegalArgumentException e) {
            throw invalid(e.getMessage());
        }
        worker.setHealthCheck(health);
        if (priority != null) {
            worker.setPriority(priority);
        }
        if (cost != null) {
            worker.setCost(cost);
        }
        if (labels != null) {
            worker.setLabels(labels);
        }
        if (body.containsKey("api_key")) {
            worker.setApiKey(apiKey);
        }
        if (runtime != null) {
            worker.setRuntime(runtime);
        }
    }

    static Map<String, Object> info(Worker w) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", w.id());
        m.put("url", w.url());
        m.put("model_id", w.modelId());
        m.put("priority", w.priority());
        m.put("cost", w.cost());
        m.put("worker_type", w.role().wireName());
        m.put("is_healthy", w.isHealthy());
        m.put("load", w.load());
        m.put("connection_mode", "http");
        if (w.runtime() != null) {
            m.put("runtime_type", w.runtime().wireName());
        }
        if (w.dataParallelRank() != null) {
            m.put("dp_rank", w.dataParallelRank());
            m.put("dp_size", w.dataParallelSize());
        }
        m.put("disable_health_check", Boolean.TRUE.equals(w.healthCheck().disabled()));
        if (w.bootstrapPort() != null) {
            m.put("bootstrap_port", w.bootstrapPort());
        }
        if (w.kvEventsEndpoint() != null) {
            m.put("kv_events_endpoint", w.kvEventsEndpoint());
        }
        if (w.kvReplayEndpoint() != null) {
            m.put("kv_replay_endpoint", w.kvReplayEndpoint());
        }
        m.put("dp_size", w.dataParallelSize());
        m.put("labels", w.labels());
        var engine = w.engineLoad();
        if (engine != null) {
            Map<String, Object> e = new LinkedHashMap<>();
            e.put("tokens", engine.tokens());
            e.put("running", engine.running());
            e.put("waiting", engine.waiting());
            e.put("kv_usage", engine.kvUsage());
            m.put("engine_load", e);
        }
        return m;
    }

    /** SGLang's per-worker health-check fields; absent ones stay null (the gateway's flags apply). */
    private static WorkerHealthCheck healthCheck(Map<String, Object> body) {
        Integer timeout = integer(body, "health_check_timeout_secs");
        Integer interval = integer(body, "health_check_interval_secs");
        Object disabled = body.get("disable_health_check");
        if (disabled != null && !(disabled instanceof Boolean)) {
            throw invalid("disable_health_check must be a boolean");
        }
        return new WorkerHealthCheck(timeout == null ? null : timeout.longValue(),
                interval == null ? null : interval.longValue(), integer(body, "health_success_threshold"),
                integer(body, "health_failure_threshold"), (Boolean) disabled);
    }

    private static String string(Map<String, Object> body, String field) {
        Object v = body.get(field);
        if (v == null) {
            return null;
        }
        if (!(v instanceof String s)) {
            throw invalid(field + " must be a string");
        }
        return s;
    }

    private static Integer integer(Map<String, Object> body, String field) {
        Object v = body.get(field);
        if (v == null) {
            return null;
        }
        if (!(v instanceof Integer i)) {
            throw invalid(field + " must be an integer");
        }
        return i;
    }

    private static Double number(Map<String, Object> body, String field) {
        Object v = body.get(field);
        if (v == null) {
            return null;
        }
        if (!(v instanceof Number n)) {
            throw invalid(field + " must be a number");
        }
        return n.doubleValue();
    }

    private static Map<String, String> labels(Map<String, Object> body) {
        Object v = body.get("labels");
        if (v == null) {
            return null;
        }
        if (!(v instanceof Map<?, ?> map)) {
            throw invalid("labels must be an object of strings");
        }
        Map<String, String> out = new LinkedHashMap<>();
        for (Map.Entry<?, ?> e : map.entrySet()) {
            if (!(e.getValue() instanceof String s)) {
                throw invalid("labels." + e.getKey() + " must be a string");
            }
            out.put(String.valueOf(e.getKey()), s);
        }
        return out;
    }

    private static GatewayException invalid(String message) {
        return GatewayError.INVALID_REQUEST.exception(message);
    }
}
