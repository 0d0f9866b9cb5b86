package dev.caravan.processors.control;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;

import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerRegistry;
import dev.caravan.processors.Json;

/**
 * Control step {@code summarizeLoads} ({@code GET /get_loads} after asking every worker's {@code /get_load}): SGLang's
 * {@code {workers:[{worker, load}]}} with {@code load} = the engine's summed {@code num_tokens} (-1 when it did not
 * answer), plus Caravan's {@code in_flight}: requests the gateway has in flight on it.
 */
public final class SummarizeLoadsProcessor implements Processor {

    private final WorkerRegistry registry;

    public SummarizeLoadsProcessor(WorkerRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void process(Exchange exchange) {
        Map<Worker, Long> tokens = new HashMap<>();
        for (ControlResult r : ControlResults.of(exchange)) {
            if (r.ok()) {
                tokens.put(r.call().worker(), EngineLoadParser.fromGetLoad(r.body()).tokens());
            }
        }
        List<Map<String, Object>> workers = new ArrayList<>();
        for (Worker w : registry.all()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("worker", w.url());
            m.put("load", tokens.getOrDefault(w, -1L));
            m.put("in_flight", w.load());
            workers.add(m);
        }
        Json.respond(exchange, 200, Map.of("workers", workers));
    }
}
