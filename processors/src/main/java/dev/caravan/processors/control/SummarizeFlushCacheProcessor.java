package dev.caravan.processors.control;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;

import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerRegistry;
import dev.caravan.processors.Json;
import dev.caravan.processors.routing.PolicyRegistry;

/**
 * Control step {@code summarizeFlushCache} ({@code POST /flush_cache} after the fan-out): SGLang's answer
 * {@code {status: success|partial_success|failed, message, workers_flushed, total_http_workers, total_workers,
 * successful:[url], failed:[{worker, error}]}} — 200 unless every worker failed (502).
 *
 * <p>One entry per engine ({@code planFlushCache} calls each engine once, at its own endpoint). Each worker whose
 * engine's cache was flushed (every rank of it) is also forgotten by its model's policy in its role's pool (regular,
 * prefill or decode; {@link PolicyRegistry#forgetCache}):
 * the tree's picture of what that engine caches would otherwise keep attracting requests to an empty cache.
 */
public final class SummarizeFlushCacheProcessor implements Processor {

    private final WorkerRegistry registry;
    private final List<PolicyRegistry> policies;

    /** @param policies the regular pool's policies, and with prefill/decode disaggregation the two legs' */
    public SummarizeFlushCacheProcessor(WorkerRegistry registry, List<PolicyRegistry> policies) {
        this.registry = registry;
        this.policies = List.copyOf(policies);
    }

    @Override
    public void process(Exchange exchange) {
        List<ControlResult> results = ControlResults.of(exchange);
        List<String> successful = new ArrayList<>();
        List<Map<String, Object>> failed = new ArrayList<>();
        for (ControlResult r : results) {
            if (r.ok()) {
                successful.add(r.call().worker().engineUrl());
                for (Worker w : registry.all()) {
                    if (w.engineUrl().equals(r.call().worker().engineUrl())) {
                        policies.forEach(p -> p.forgetCache(w)); // every rank of the engine, in its role's pool
                    }
                }
            } else {
                Map<String, Object> f = new LinkedHashMap<>();
                f.put("worker", r.call().worker().engineUrl());
                f.put("error", r.reason());
                failed.add(f);
            }
        }
        String status = failed.isEmpty() ? "success" : successful.isEmpty() ? "failed" : "partial_success";
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("status", status);
        body.put("message", failed.isEmpty()
                ? "Cache flushed on all " + successful.size() + " worker(s)"
                : "Cache flushed on " + successful.size() + " of " + results.size() + " worker(s)");
        body.put("workers_flushed", successful.size());
        body.put("total_http_workers", results.size());
        body.put("total_workers", registry.size());
        body.put("successful", successful);
        body.put("failed", failed);
        Json.respond(exchange, status.equals("failed") ? 502 : 200, body);
    }
}
