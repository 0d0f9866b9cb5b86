package dev.caravan.processors.health;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;

import dev.caravan.processors.Json;
import dev.caravan.processors.control.ControlResult;
import dev.caravan.processors.control.ControlResults;

/**
 * Step {@code summarizeHealthGenerate}: 200 {@code {"status":"ok","workers":[...]}} when every leg's
 * {@code /health_generate} answered 2xx, else 503 {@code {"status":"failed","workers":[...]}}; each entry names the
 * worker, its role and its status or error.
 */
public final class SummarizeHealthGenerateProcessor implements Processor {

    @Override
    public void process(Exchange exchange) {
        boolean ok = true;
        List<Map<String, Object>> legs = new ArrayList<>();
        for (ControlResult r : ControlResults.of(exchange)) {
            Map<String, Object> leg = new LinkedHashMap<>();
            leg.put("url", r.call().worker().url());
            leg.put("worker_type", r.call().worker().role().wireName());
            leg.put("status", r.status());
            if (!r.ok()) {
                ok = false;
                leg.put("error", r.reason());
            }
            legs.add(leg);
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("status", ok ? "ok" : "failed");
        body.put("workers", legs);
        Json.respond(exchange, ok ? 200 : 503, body);
    }
}
