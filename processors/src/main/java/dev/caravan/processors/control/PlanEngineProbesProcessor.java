package dev.caravan.processors.control;

import java.util.ArrayList;
import java.util.List;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;

import dev.caravan.policies.Worker;

/**
 * Control step {@code planEngineProbes} (the {@code engine-probe} timer route): for each worker whose engine is due to be
 * asked ({@link EngineProbes#due}), a {@code GET} of {@value #SERVER_INFO} (SGLang: its server arguments, among them
 * {@code dp_size}) and of {@value #VERSION} (vLLM's version endpoint). {@code applyEngineProbes} reads the answers.
 */
public final class PlanEngineProbesProcessor implements Processor {

    public static final String SERVER_INFO = "/get_server_info";
    public static final String VERSION = "/version";

    private final EngineProbes probes;

    public PlanEngineProbesProcessor(EngineProbes probes) {
        this.probes = probes;
    }

    @Override
    public void process(Exchange exchange) {
        List<ControlCall> calls = new ArrayList<>();
        for (Worker w : probes.due()) {
            calls.add(new ControlCall(w, "GET", SERVER_INFO, null));
            calls.add(new ControlCall(w, "GET", VERSION, null));
        }
        exchange.getMessage().setBody(calls);
    }
}
