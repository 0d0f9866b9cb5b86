package dev.caravan.policies.internal;

import java.util.List;
import java.util.random.RandomGenerator;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.caravan.policies.BoundedConsistentHashingConfig;
import dev.caravan.policies.Branches;
import dev.caravan.policies.Decision;
import dev.caravan.policies.PolicyEnvironment;
import dev.caravan.policies.PolicyName;
import dev.caravan.policies.SelectionContext;
import dev.caravan.policies.Worker;

/**
 * Latest SGLang's {@code bounded_consistent_hashing}: {@code consistent_hashing}'s priority order, except that a request
 * with an explicit {@code X-SMG-Routing-Key} whose ring worker is overloaded spills over to the next ring worker that is
 * not.
 * <ol>
 *   <li>{@code X-SMG-Target-Worker}: exactly as consistent_hashing, load ignored ({@code target_worker_hit|miss}).</li>
 *   <li>{@code X-SMG-Routing-Key}: the ring's worker for the key ("preferred", walking past unhealthy ones). Over the
 *       healthy workers' in-flight loads, with {@code bound = mean * maxLoadSkew}, it spills iff
 *       {@code preferred - min > minLoadGap && preferred > bound}; then the ring is walked clockwise from the key and the
 *       first healthy worker with {@code load <= bound} wins ({@code explicit_routing_key_spillover}); if none
 *       qualifies the preferred worker is kept ({@code explicit_routing_key_no_eligible_candidate}). Otherwise
 *       {@code explicit_routing_key_hit}. The walk order depends only on the key, so one key's overflow lands on the
 *       same worker every time, and comes back when the load evens out.</li>
 *   <li>{@code authorization}/{@code x-forwarded-for}/{@code cookie}: ring lookup that never spills
 *       ({@code implicit_routing_key_hit}): implicit keys are affinity hints, not a contract to balance.</li>
 *   <li>No key: uniformly random healthy worker ({@code random_fallback}).</li>
 * </ol>
 * The gap rule keeps affinity at low loads, where "1 versus 0" is over any ratio but means nothing. Rings are shared
 * code with consistent_hashing ({@link HashRings}). Thread-safe given a thread-safe generator; loads are read once per
 * worker per decision, so a concurrent change can at worst make a borderline request spill or not.
 */
public final class BoundedConsistentHashingPolicy extends RingPolicy {

    private static final Logger LOG = LoggerFactory.getLogger(BoundedConsistentHashingPolicy.class);
    private static final String NAME = PolicyName.BOUNDED_CONSISTENT_HASHING.wireName();

    private final BoundedConsistentHashingConfig config;
    private final RandomGenerator random;

    public BoundedConsistentHashingPolicy(BoundedConsistentHashingConfig config, PolicyEnvironment env) {
        this.config = config;
        this.random = env.random();
    }

    @Override
    public Decision select(List<Worker> candidates, SelectionContext context) {
        if (candidates.isEmpty()) {
            return Decision.none(NAME, Branches.NO_HEALTHY_WORKERS);
        }
        String target = context.header(SelectionContext.TARGET_WORKER_HEADER);
        if (target != null) {
            return ConsistentHashingPolicy.byTarget(candidates, target, NAME);
        }
        List<Worker> healthy = HealthyWorkers.of(candidates);
        if (healthy.isEmpty()) {
            return Decision.none(NAME, Branches.NO_HEALTHY_WORKERS);
        }
        String explicit = context.header(SelectionContext.ROUTING_KEY_HEADER);
        String key = explicit != null ? explicit : ConsistentHashingPolicy.implicitKey(context);
        if (key == null) {
            return Decision.of(healthy.get(random.nextInt(healthy.size())), NAME, Branches.RANDOM_FALLBACK);
        }
        HashRing ring = rings.ring(ModelKey.of(context, healthy), candidates);
        Worker preferred = lookup(ring, key, healthy, Double.POSITIVE_INFINITY);
        if (preferred == null) {
            return Decision.none(NAME, Branches.NO_HEALTHY_WORKERS);
        }
        if (explicit == null) {
            return Decision.of(preferred, NAME, Branches.IMPLICIT_ROUTING_KEY_HIT);
        }
        return bounded(ring, key, healthy, preferred);
    }

    private Decision bounded(HashRing ring, String key, List<Worker> healthy, Worker preferred) {
        long sum = 0;
        int min = Integer.MAX_VALUE;
        for (int i = 0, n = healthy.size(); i < n; i++) {
            int load = healthy.get(i).load();
            sum += load;
            min = Math.min(min, load);
        }
        double bound = (double) sum / healthy.size() * config.maxLoadSkew();
        int load = preferred.load();
        if (!((long) load - min > config.minLoadGap() && load > bound)) {
            return Decision.of(preferred, NAME, Branches.EXPLICIT_ROUTING_KEY_HIT);
        }
        Worker spill = lookup(ring, key, healthy, bound);
        if (spill == preferred) { // its load fell within the bound meanwhile
            return Decision.of(preferred, NAME, Branches.EXPLICIT_ROUTING_KEY_HIT);
        }
        if (spill == null) {
            LOG.debug("bounded_consistent_hashing: {} overloaded ({} > {}), nothing within the bound; kept",
                    preferred.url(), load, bound);
            return Decision.of(preferred, NAME, Branches.EXPLICIT_ROUTING_KEY_NO_ELIGIBLE_CANDIDATE);
        }
        LOG.debug("bounded_consistent_hashing: {} overloaded ({} > {}), spilled to {}", preferred.url(), load, bound,
                spill.url());
        return Decision.of(spill, NAME, Branches.EXPLICIT_ROUTING_KEY_SPILLOVER);
    }

    /** The first healthy worker clockwise from the key whose load is at most {@code bound}, or null. */
    private static Worker lookup(HashRing ring, String key, List<Worker> healthy, double bound) {
        String url = ring.find(key, u -> {
            Worker w = ConsistentHashingPolicy.find(healthy, u);
            return w != null && w.load() <= bound;
        });
        return url == null ? null : ConsistentHashingPolicy.find(healthy, url);
    }

    public BoundedConsistentHashingConfig config() {
        return config;
    }

    @Override
    public String name() {
        return NAME;
    }
}
