package dev.caravan.policies.internal;

import java.util.List;
import java.util.random.RandomGenerator;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.caravan.policies.Branches;
import dev.caravan.policies.Decision;
import dev.caravan.policies.EngineLoad;
import dev.caravan.policies.LoadBalancingPolicy;
import dev.caravan.policies.PolicyEnvironment;
import dev.caravan.policies.PolicyName;
import dev.caravan.policies.SelectionContext;
import dev.caravan.policies.Worker;

/**
 * SGLang's {@code power_of_two}: sample two distinct healthy workers uniformly ({@code i1} uniform, {@code i2 = (i1 + 1
 * + r) mod n} with {@code r} uniform in {@code [0, n-2]}) and keep the less loaded, the first on a tie.
 *
 * <p>Load: when both samples carry an engine-reported token load ({@link Worker#engineLoad()}, set by the gateway's load
 * monitor from {@code /get_load}), those are compared; when either lacks it, both are compared by in-flight request
 * count ({@link Worker#load()}), SGLang's fallback. Deliberate difference: SGLang stores a failed poll as {@code -1},
 * which then compares as the least loaded and attracts traffic to the failing engine; here a failed poll
 * ({@link EngineLoad#hasTokens()} false, or no poll yet) counts as absent, so the pair falls back to request counts.
 *
 * <p>Bumps {@link Worker#incrementProcessed()} on the chosen worker, as SGLang does. Thread-safe given a thread-safe
 * generator.
 */
public final class PowerOfTwoPolicy implements LoadBalancingPolicy {

    private static final Logger LOG = LoggerFactory.getLogger(PowerOfTwoPolicy.class);
    private static final String NAME = PolicyName.POWER_OF_TWO.wireName();

    private final RandomGenerator random;

    public PowerOfTwoPolicy(PolicyEnvironment env) {
        this.random = env.random();
    }

    @Override
    public Decision select(List<Worker> candidates, SelectionContext context) {
        List<Worker> healthy = HealthyWorkers.of(candidates);
        int n = healthy.size();
        if (n == 0) {
            return Decision.none(NAME, Branches.NO_HEALTHY_WORKERS);
        }
        if (n == 1) {
            Worker only = healthy.get(0);
            only.incrementProcessed();
            return Decision.of(only, NAME, Branches.SINGLE_WORKER);
        }
        int i1 = random.nextInt(n);
        int i2 = (i1 + 1 + random.nextInt(n - 1)) % n;
        Worker w1 = healthy.get(i1);
        Worker w2 = healthy.get(i2);
        EngineLoad e1 = w1.engineLoad();
        EngineLoad e2 = w2.engineLoad();
        long l1;
        long l2;
        String branch;
        if (e1 != null && e1.hasTokens() && e2 != null && e2.hasTokens()) {
            l1 = e1.tokens();
            l2 = e2.tokens();
            branch = Branches.ENGINE_TOKEN_LOAD;
        } else {
            l1 = w1.load();
            l2 = w2.load();
            branch = Branches.REQUEST_COUNT_FALLBACK;
        }
        Worker chosen = l1 <= l2 ? w1 : w2;
        chosen.incrementProcessed();
        if (LOG.isDebugEnabled()) {
            LOG.debug("power_of_two: {}={} vs {}={} ({}) -> {}", w1.url(), l1, w2.url(), l2, branch, chosen.url());
        }
        return Decision.of(chosen, NAME, branch);
    }

    @Override
    public String name() {
        return NAME;
    }
}
