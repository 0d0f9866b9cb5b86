package dev.caravan.processors.admin;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;

import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerRegistry;
import dev.caravan.processors.Json;

/**
 * Admin step {@code listWorkers} ({@code GET /workers}): {@code {workers:[WorkerInfo], total,
 * stats:{prefill_count, decode_count, regular_count}}}, workers in registration order.
 */
public final class ListWorkersProcessor implements Processor {

    private final WorkerRegistry registry;

    public ListWorkersProcessor(WorkerRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void process(Exchange exchange) {
        List<Worker> all = registry.all();
        List<Map<String, Object>> infos = new ArrayList<>(all.size());
        int prefill = 0;
        int decode = 0;
        int regular = 0;
        for (Worker w : all) {
            infos.add(WorkerJson.info(w));
            switch (w.role()) {
                case PREFILL -> prefill++;
                case DECODE -> decode++;
                default -> regular++;
            }
        }
        Map<String, Object> stats = new LinkedHashMap<>();
        stats.put("prefill_count", prefill);
        stats.put("decode_count", decode);
        stats.put("regular_count", regular);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("workers", infos);
        body.put("total", all.size());
        body.put("stats", stats);
        Json.respond(exchange, 200, body);
    }
}
