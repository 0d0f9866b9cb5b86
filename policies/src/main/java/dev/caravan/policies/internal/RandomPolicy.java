package dev.caravan.policies.internal;

import java.util.List;
import java.util.random.RandomGenerator;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.caravan.policies.Branches;
import dev.caravan.policies.Decision;
import dev.caravan.policies.LoadBalancingPolicy;
import dev.caravan.policies.PolicyEnvironment;
import dev.caravan.policies.PolicyName;
import dev.caravan.policies.SelectionContext;
import dev.caravan.policies.Worker;

/**
 * SGLang's {@code random}: a uniformly random healthy candidate. Stateless apart from the injected generator, hence
 * thread-safe.
 */
public final class RandomPolicy implements LoadBalancingPolicy {

    private static final Logger LOG = LoggerFactory.getLogger(RandomPolicy.class);
    private static final String NAME = PolicyName.RANDOM.wireName();

    private final RandomGenerator random;

    public RandomPolicy(PolicyEnvironment env) {
        this.random = env.random();
    }

    @Override
    public Decision select(List<Worker> candidates, SelectionContext context) {
        List<Worker> healthy = HealthyWorkers.of(candidates);
        if (healthy.isEmpty()) {
            return Decision.none(NAME, Branches.NO_HEALTHY_WORKERS);
        }
        Worker w = healthy.get(random.nextInt(healthy.size()));
        LOG.debug("random: chose {} of {} healthy", w.url(), healthy.size());
        return Decision.of(w, NAME, Branches.UNIFORM);
    }

    @Override
    public String name() {
        return NAME;
    }
}
