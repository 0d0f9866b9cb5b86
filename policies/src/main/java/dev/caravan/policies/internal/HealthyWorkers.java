package dev.caravan.policies.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.function.ToIntFunction;

import dev.caravan.policies.Worker;

/**
 * The one healthy filter every policy applies, as SGLang's {@code get_healthy_worker_indices} does: the router has
 * already dropped unavailable workers, but health may flip between the router's filter and the policy's read.
 */
final class HealthyWorkers {

    private HealthyWorkers() {
    }

    /**
     * The healthy candidates in their original order. Returns {@code candidates} itself (no copy) when all are healthy,
     * the common case on the request path.
     */
    static List<Worker> of(List<Worker> candidates) {
        int n = candidates.size();
        for (int i = 0; i < n; i++) {
            if (!candidates.get(i).isHealthy()) {
                List<Worker> out = new ArrayList<>(n - 1);
                for (int j = 0; j < n; j++) {
                    Worker w = candidates.get(j);
                    if (j != i && (j < i || w.isHealthy())) {
                        out.add(w);
                    }
                }
                return out;
            }
        }
        return candidates;
    }

    /**
     * The healthy worker with the minimum {@link Worker#load()}; ties go to the worker with fewer
     * {@link Worker#processed() processed} selections, then to the earlier one. The processed tie-break is the later SGLang
     * gateway's (smg #1714): without it, strictly sequential traffic (load always 0) sends every new prefix to the first
     * worker, so a cold fleet fills one replica's cache before any other.
     */
    static Worker minLoad(List<Worker> healthy) {
        return minLoad(healthy, Worker::load);
    }

    /** {@link #minLoad(List)} by the given load measure (cache_aware's engine-aware load), same tie-breaks. */
    static Worker minLoad(List<Worker> healthy, ToIntFunction<Worker> loadOf) {
        Worker best = null;
        int bestLoad = Integer.MAX_VALUE;
        long bestProcessed = Long.MAX_VALUE;
        for (int i = 0, n = healthy.size(); i < n; i++) {
            Worker w = healthy.get(i);
            int load = loadOf.applyAsInt(w);
            if (load < bestLoad || (load == bestLoad && w.processed() < bestProcessed)) {
                best = w;
                bestLoad = load;
                bestProcessed = w.processed();
            }
        }
        return best;
    }
}
