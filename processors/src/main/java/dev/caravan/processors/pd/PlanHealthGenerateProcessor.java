package dev.caravan.processors.pd;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;

import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerRegistry;
import dev.caravan.policies.WorkerRole;
import dev.caravan.processors.control.ControlCall;
import dev.caravan.processors.error.GatewayError;

/**
 * Admin step {@code planHealthGenerate} ({@code GET /health_generate}): plans a real generation check — the engines'
 * own {@code GET /health_generate} — on one available worker, or in P/D mode on a pair: one available prefill and one
 * available decode worker, picked at random (SGLang selects the pair without request text), both called at once by
 * the {@code call-workers} fan-out. Nothing available → 503 {@code health_generate_failed}.
 *
 * <p>Writes the body ({@code List<ControlCall>}).
 */
public final class PlanHealthGenerateProcessor implements Processor {

    public static final String PATH = "/health_generate";

    private final WorkerRegistry workers;
    private final boolean prefillDecode;
    private final Supplier<RandomGenerator> random;

    /**
     * @param prefillDecode check a prefill/decode pair instead of one regular worker
     * @param random        picks among the available workers
     */
    public PlanHealthGenerateProcessor(WorkerRegistry workers, boolean prefillDecode, Supplier<RandomGenerator> random) {
        this.workers = workers;
        this.prefillDecode = prefillDecode;
        this.random = random;
    }

    @Override
    public void process(Exchange exchange) {
        List<ControlCall> calls = new ArrayList<>(2);
        if (prefillDecode) {
            calls.add(call(pick(WorkerRole.PREFILL)));
            calls.add(call(pick(WorkerRole.DECODE)));
        } else {
            calls.add(call(pick(WorkerRole.REGULAR)));
        }
        exchange.getMessage().setBody(calls);
    }

    private Worker pick(WorkerRole role) {
        List<Worker> available = new ArrayList<>();
        for (Worker w : workers.list(null, role)) {
            if (w.isAvailable()) {
                available.add(w);
            }
        }
        if (available.isEmpty()) {
            throw GatewayError.HEALTH_GENERATE_FAILED.exception("No available " + (role == WorkerRole.REGULAR ? ""
                    : role.wireName() + " ") + "workers to run a generation check on");
        }
        return available.get(random.get().nextInt(available.size()));
    }

    private static ControlCall call(Worker worker) {
        return new ControlCall(worker, "GET", PATH, null);
    }
}
