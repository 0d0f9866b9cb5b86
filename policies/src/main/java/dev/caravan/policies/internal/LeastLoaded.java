package dev.caravan.policies.internal;

import java.util.List;
import java.util.function.ToIntFunction;
import java.util.function.ToLongFunction;
import java.util.random.RandomGenerator;

import dev.caravan.policies.MinLoadTieBreak;
import dev.caravan.policies.Worker;

/**
 * cache_aware's least-loaded choice under its {@link MinLoadTieBreak}: {@code processed} is
 * {@link HealthyWorkers#minLoad(List, ToIntFunction)}; {@code footprint} takes, among the least-loaded healthy workers,
 * the one with the smallest tree footprint, and among those one uniformly at random (one pass, reservoir sampling), so
 * no position in the candidate list is favoured.
 */
final class LeastLoaded {

    private LeastLoaded() {
    }

    static Worker pick(List<Worker> healthy, ToIntFunction<Worker> loadOf, MinLoadTieBreak rule,
                       ToLongFunction<Worker> footprint, RandomGenerator random) {
        if (rule == MinLoadTieBreak.PROCESSED) {
            return HealthyWorkers.minLoad(healthy, loadOf);
        }
        Worker best = null;
        int bestLoad = Integer.MAX_VALUE;
        long bestFootprint = Long.MAX_VALUE;
        int ties = 0;
        for (int i = 0, n = healthy.size(); i < n; i++) {
            Worker w = healthy.get(i);
            int load = loadOf.applyAsInt(w);
            if (load > bestLoad) {
                continue;
            }
            long chars = footprint.applyAsLong(w);
            if (load < bestLoad || chars < bestFootprint) {
                best = w;
                bestLoad = load;
                bestFootprint = chars;
                ties = 1;
            } else if (chars == bestFootprint && random.nextInt(++ties) == 0) {
                best = w;
            }
        }
        return best;
    }
}
