package dev.caravan.processors.control;

import java.util.ArrayList;
import java.util.List;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;

import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerRegistry;

/**
 * Control step ({@code planFlushCache}, {@code planListModels}, {@code planGetLoads}, {@code planLoadPoll}): sets the body
 * to the list of {@link ControlCall}s the {@code call-workers} route fans out — one per worker and path.
 */
public final class PlanControlCallsProcessor implements Processor {

    /** Which workers are called. */
    public enum Scope { ALL, HEALTHY }

    private final WorkerRegistry registry;
    private final Scope scope;
    private final String method;
    private final List<String> paths;

    public PlanControlCallsProcessor(WorkerRegistry registry, Scope scope, String method, List<String> paths) {
        this.registry = registry;
        this.scope = scope;
        this.method = method;
        this.paths = List.copyOf(paths);
    }

    @Override
    public void process(Exchange exchange) {
        List<ControlCall> calls = new ArrayList<>();
        for (Worker w : registry.all()) {
            if (scope == Scope.HEALTHY && !w.isHealthy()) {
                continue;
            }
            for (String path : paths) {
                calls.add(new ControlCall(w, method, path, null));
            }
        }
        exchange.getMessage().setBody(calls);
    }
}
