package dev.caravan.processors.routing;

import static dev.caravan.processors.CaravanExchangeProperties.REQUEST_KIND;
import static dev.caravan.processors.CaravanExchangeProperties.UPSTREAM_PATH;
import static dev.caravan.processors.CaravanExchangeProperties.WORKER;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;

import dev.caravan.policies.EngineRuntime;
import dev.caravan.policies.Worker;
import dev.caravan.processors.request.RequestKind;

/**
 * Route step {@code resolveEnginePath} (each attempt, after {@code selectWorker}): sends an API that SGLang and vLLM
 * serve under different paths to the chosen worker's own ({@link RequestKind#upstreamPath(EngineRuntime)}: vLLM's
 * {@code /tokenize} for SGLang's {@code /v1/tokenize}). The worker's engine is the one set at registration or
 * detected since, else {@code --backend}. Only a path that is one of the kind's own is replaced (a route that sent the
 * request elsewhere keeps its path); the query is kept. Reads {@code REQUEST_KIND}, {@code WORKER},
 * {@code UPSTREAM_PATH}; writes {@code UPSTREAM_PATH}.
 */
public final class ResolveEnginePathProcessor implements Processor {

    private final EngineRuntime fallback;

    /** @param fallback the engine of workers whose engine is not known ({@code --backend}) */
    public ResolveEnginePathProcessor(EngineRuntime fallback) {
        this.fallback = fallback;
    }

    @Override
    public void process(Exchange exchange) {
        RequestKind kind = RequestKind.parse(REQUEST_KIND.get(exchange));
        Worker worker = WORKER.get(exchange);
        String path = UPSTREAM_PATH.get(exchange);
        if (!kind.pathDependsOnEngine() || worker == null || path == null) {
            return;
        }
        int q = path.indexOf('?');
        String bare = q < 0 ? path : path.substring(0, q);
        if (bare.equals(kind.upstreamPath(EngineRuntime.SGLANG)) || bare.equals(kind.upstreamPath(EngineRuntime.VLLM))) {
            UPSTREAM_PATH.set(exchange, kind.upstreamPath(worker.runtimeOr(fallback)) + (q < 0 ? "" : path.substring(q)));
        }
    }
}
