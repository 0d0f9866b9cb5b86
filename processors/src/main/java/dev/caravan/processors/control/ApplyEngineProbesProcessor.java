package dev.caravan.processors.control;

import java.util.LinkedHashMap;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.caravan.policies.EngineRuntime;
import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerRegistry;
import dev.caravan.processors.Json;

/**
 * Control step {@code applyEngineProbes} (after {@code planEngineProbes} and {@code direct:call-workers}): what each
 * engine said it is.
 * <ul>
 *   <li>A JSON object from {@code /get_server_info}: SGLang (vLLM serves no such endpoint); its {@code dp_size} is the
 *       number of data-parallel ranks. Else a 2xx from {@code /version}: vLLM. Else the engine is asked again later
 *       ({@link EngineProbes#failed}). A worker registered with a {@code runtime} keeps it.</li>
 *   <li>With {@code --dp-aware}, an engine with {@code dp_size} &gt; 1 is replaced by one worker per rank,
 *       {@code url@0 .. url@n-1}, with the engine's settings (SGLang's DP-aware workers): the policies then balance
 *       across ranks, and each request is pinned to its rank ({@code pinDataParallelRank}). An engine with one rank, or
 *       that reports none (vLLM), stays one worker.</li>
 * </ul>
 */
public final class ApplyEngineProbesProcessor implements Processor {

    private static final Logger LOG = LoggerFactory.getLogger(ApplyEngineProbesProcessor.class);

    private final WorkerRegistry registry;
    private final EngineProbes probes;

    public ApplyEngineProbesProcessor(WorkerRegistry registry, EngineProbes probes) {
        this.registry = registry;
        this.probes = probes;
    }

    @Override
    public void process(Exchange exchange) {
        Map<Worker, JsonNode> serverInfo = new LinkedHashMap<>();
        Map<Worker, Boolean> version = new LinkedHashMap<>();
        for (ControlResult r : ControlResults.of(exchange)) {
            Worker w = r.call().worker();
            serverInfo.putIfAbsent(w, null);
            if (r.call().path().equals(PlanEngineProbesProcessor.SERVER_INFO) && r.ok()) {
                JsonNode root = Json.tree(r.body());
                if (root != null && root.isObject()) {
                    serverInfo.put(w, root);
                }
            } else if (r.call().path().equals(PlanEngineProbesProcessor.VERSION) && r.ok()) {
                version.put(w, true);
            }
        }
        serverInfo.forEach((w, info) -> apply(w, info, version.getOrDefault(w, false)));
    }

    private void apply(Worker worker, JsonNode info, boolean vllmVersion) {
        if (info == null && !vllmVersion) {
            if (probes.failed(worker)) {
                LOG.warn("Engine {} did not say what it is; taken to be --backend{}", worker.engineUrl(),
                        probes.dataParallelAware() ? ", and routed to as one worker (its ranks are unknown)" : "");
            }
            return;
        }
        probes.done(worker);
        EngineRuntime detected = info != null ? EngineRuntime.SGLANG : EngineRuntime.VLLM;
        if (worker.runtime() == null) {
            worker.setRuntime(detected);
            LOG.info("Worker {} is served by {}", worker.url(), detected.wireName());
        }
        int ranks = info == null ? 1 : info.path("dp_size").asInt(1);
        if (probes.dataParallelAware() && ranks > 1 && registry.get(worker.id()).isPresent()) {
            splitIntoRanks(worker, ranks);
        }
    }

    private void splitIntoRanks(Worker engine, int ranks) {
        for (int rank = 0; rank < ranks; rank++) {
            try {
                registry.add(Worker.Builder.copyOf(engine).dataParallelRank(rank, ranks).build());
            } catch (IllegalStateException e) {
                LOG.debug("Rank {} of {} already registered: {}", rank, engine.engineUrl(), e.getMessage());
            }
        }
        registry.remove(engine.id());
        LOG.info("Worker {} serves {} data-parallel ranks: routed to as {}@0..{}", engine.url(), ranks,
                engine.engineUrl(), ranks - 1);
    }
}
