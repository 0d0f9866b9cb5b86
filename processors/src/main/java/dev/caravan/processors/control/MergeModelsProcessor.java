package dev.caravan.processors.control;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;

import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerRegistry;
import dev.caravan.processors.Json;
import dev.caravan.processors.error.GatewayError;

/**
 * Control step {@code mergeModels} ({@code GET /v1/models} after the fan-out to healthy workers): the union of the
 * workers' {@code data} arrays, first occurrence of each model {@code id} wins, in worker order; OpenAI's
 * {@code {object:"list", data:[...]}}. No healthy worker → 503; every call failed → 502.
 */
public final class MergeModelsProcessor implements Processor {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final WorkerRegistry registry;

    public MergeModelsProcessor(WorkerRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void process(Exchange exchange) {
        List<ControlResult> results = ControlResults.of(exchange);
        if (results.isEmpty()) {
            throw GatewayError.NO_AVAILABLE_WORKERS.exception("No healthy workers to list models from");
        }
        List<Worker> order = registry.all();
        results.sort(Comparator.comparingInt(r -> order.indexOf(r.call().worker())));
        Set<String> seen = new LinkedHashSet<>();
        List<Object> data = new ArrayList<>();
        boolean anyOk = false;
        for (ControlResult r : results) {
            JsonNode root = r.ok() ? Json.tree(r.body()) : null;
            if (root == null || !root.path("data").isArray()) {
                continue;
            }
            anyOk = true;
            for (JsonNode model : root.get("data")) {
                String id = model.path("id").asText(null);
                if (id != null && seen.add(id)) {
                    data.add(MAPPER.convertValue(model, Map.class));
                }
            }
        }
        if (!anyOk) {
            throw GatewayError.UPSTREAM_FAILED.exception("No worker answered /v1/models: " + results.get(0).reason());
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("object", "list");
        body.put("data", data);
        Json.respond(exchange, 200, body);
    }
}
