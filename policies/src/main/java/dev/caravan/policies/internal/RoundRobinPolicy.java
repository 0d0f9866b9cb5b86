package dev.caravan.policies.internal;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.caravan.policies.Branches;
import dev.caravan.policies.Decision;
import dev.caravan.policies.LoadBalancingPolicy;
import dev.caravan.policies.PolicyName;
import dev.caravan.policies.SelectionContext;
import dev.caravan.policies.Worker;

/**
 * SGLang's {@code round_robin}: one atomic counter shared by every request (not per model), and the pick is
 * {@code healthy[counter++ % healthy.size()]}. Unhealthy workers are skipped by indexing into the healthy list, so the
 * cycle shifts when health changes, exactly as in SGLang. The counter advances only when a worker is returned.
 * Lock-free; {@link #reset()} zeroes the counter.
 */
public final class RoundRobinPolicy implements LoadBalancingPolicy {

    private static final Logger LOG = LoggerFactory.getLogger(RoundRobinPolicy.class);
    private static final String NAME = PolicyName.ROUND_ROBIN.wireName();

    private final AtomicLong counter = new AtomicLong();

    @Override
    public Decision select(List<Worker> candidates, SelectionContext context) {
        List<Worker> healthy = HealthyWorkers.of(candidates);
        if (healthy.isEmpty()) {
            return Decision.none(NAME, Branches.NO_HEALTHY_WORKERS);
        }
        long n = counter.getAndIncrement();
        Worker w = healthy.get((int) Math.floorMod(n, (long) healthy.size()));
        LOG.debug("round_robin: turn {} chose {}", n, w.url());
        return Decision.of(w, NAME, Branches.NEXT_IN_CYCLE);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void reset() {
        counter.set(0);
    }
}
