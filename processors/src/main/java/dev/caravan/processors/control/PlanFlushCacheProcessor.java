package dev.caravan.processors.control;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;

import dev.caravan.policies.EngineRuntime;
import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerRegistry;

/**
 * Control step {@code planFlushCache} ({@code POST /flush_cache}): one {@code POST} per engine to its own cache-reset
 * endpoint — SGLang's {@value #SGLANG_PATH}, vLLM's {@value #VLLM_PATH} (which vLLM serves only with
 * {@code VLLM_SERVER_DEV_MODE=1}; otherwise that worker is reported failed with its 404). The engine is the worker's as
 * registered or detected, else {@code --backend}. An engine registered as several workers (its data-parallel ranks, or a
 * prefill and a decode role) is called once.
 */
public final class PlanFlushCacheProcessor implements Processor {

    public static final String SGLANG_PATH = "/flush_cache";
    public static final String VLLM_PATH = "/reset_prefix_cache";

    private final WorkerRegistry registry;
    private final EngineRuntime fallback;

    /** @param fallback the engine of workers whose engine is not known ({@code --backend}) */
    public PlanFlushCacheProcessor(WorkerRegistry registry, EngineRuntime fallback) {
        this.registry = registry;
        this.fallback = fallback;
    }

    @Override
    public void process(Exchange exchange) {
        List<ControlCall> calls = new ArrayList<>();
        Set<String> engines = new HashSet<>();
        for (Worker w : registry.all()) {
            if (engines.add(w.engineUrl())) {
                calls.add(new ControlCall(w, "POST", path(w.runtimeOr(fallback)), null));
            }
        }
        exchange.getMessage().setBody(calls);
    }

    /** The cache-reset endpoint of an engine. */
    public static String path(EngineRuntime runtime) {
        return runtime == EngineRuntime.VLLM ? VLLM_PATH : SGLANG_PATH;
    }
}
