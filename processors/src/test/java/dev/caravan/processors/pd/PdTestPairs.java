package dev.caravan.processors.pd;

import java.util.List;

import dev.caravan.policies.Decision;
import dev.caravan.policies.LoadBalancingPolicy;
import dev.caravan.policies.SelectionContext;
import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerRole;

/** Pairs of real workers (with leases taken) and a policy that records outcomes, for the P/D unit tests. */
final class PdTestPairs {

    /** Records {@code onRequestComplete} calls as "url=true/false". */
    static final class OutcomePolicy implements LoadBalancingPolicy {
        final List<String> outcomes = new java.util.concurrent.CopyOnWriteArrayList<>();

        @Override
        public Decision select(List<Worker> candidates, SelectionContext context) {
            return Decision.of(candidates.get(0), name(), "first");
        }

        @Override
        public String name() {
            return "recording";
        }

        @Override
        public void onRequestComplete(Worker worker, boolean success) {
            outcomes.add(worker.url() + "=" + success);
        }
    }

    private PdTestPairs() {
    }

    static Worker prefillWorker() {
        return Worker.builder("http://10.0.0.1:8000").role(WorkerRole.PREFILL).bootstrapPort(8998).build();
    }

    static Worker decodeWorker() {
        return Worker.builder("http://10.0.0.2:8000").role(WorkerRole.DECODE).build();
    }

    static PdPair pair(LoadBalancingPolicy policy) {
        Worker p = prefillWorker();
        Worker d = decodeWorker();
        return new PdPair(new PdPair.Side(p, Decision.of(p, policy.name(), "first"), policy, p.acquire()),
                new PdPair.Side(d, Decision.of(d, policy.name(), "first"), policy, d.acquire()));
    }
}
