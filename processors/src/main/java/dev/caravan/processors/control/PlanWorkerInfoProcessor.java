package dev.caravan.processors.control;

import java.util.ArrayList;
import java.util.List;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;

import dev.caravan.policies.EngineRuntime;
import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerRegistry;
import dev.caravan.policies.WorkerRole;

/**
 * Control step {@code planServerInfo} / {@code planModelInfo} ({@code GET /get_server_info}, {@code /server_info},
 * {@code /get_model_info}, {@code /model_info}): answered the way SGLang's router answers them — by one worker, the
 * first healthy one (in P/D, the first healthy prefill worker) — so the plan is one {@code GET} of each of the engine's
 * spellings on that worker ({@code /get_server_info}, and {@code /server_info}, which newer SGLang engines serve
 * instead); {@code relayWorkerAnswer} relays the first that answered 2xx. Among healthy workers an SGLang engine is
 * preferred, since vLLM serves neither endpoint. No healthy worker: an empty plan (503).
 */
public final class PlanWorkerInfoProcessor implements Processor {

    private final WorkerRegistry registry;
    private final EngineRuntime fallback;
    private final List<String> paths;

    /**
     * @param fallback the engine of workers whose engine is not known ({@code --backend})
     * @param paths    the engine paths to ask, in order of preference
     */
    public PlanWorkerInfoProcessor(WorkerRegistry registry, EngineRuntime fallback, List<String> paths) {
        this.registry = registry;
        this.fallback = fallback;
        this.paths = List.copyOf(paths);
    }

    @Override
    public void process(Exchange exchange) {
        Worker chosen = choose(WorkerRole.REGULAR);
        if (chosen == null) {
            chosen = choose(WorkerRole.PREFILL);
        }
        List<ControlCall> calls = new ArrayList<>();
        if (chosen != null) {
            for (String path : paths) {
                calls.add(new ControlCall(chosen, "GET", path, null));
            }
        }
        exchange.getMessage().setBody(calls);
    }

    private Worker choose(WorkerRole role) {
        Worker first = null;
        for (Worker w : registry.list(null, role)) {
            if (!w.isHealthy()) {
                continue;
            }
            if (w.runtimeOr(fallback) == EngineRuntime.SGLANG) {
                return w;
            }
            first = first == null ? w : first;
        }
        return first;
    }

    /** The paths asked, in order of preference. */
    List<String> paths() {
        return paths;
    }
}
