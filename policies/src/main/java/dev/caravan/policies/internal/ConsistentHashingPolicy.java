package dev.caravan.policies.internal;

import java.util.List;
import java.util.random.RandomGenerator;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.caravan.policies.Branches;
import dev.caravan.policies.Decision;
import dev.caravan.policies.PolicyEnvironment;
import dev.caravan.policies.PolicyName;
import dev.caravan.policies.SelectionContext;
import dev.caravan.policies.Worker;

/**
 * SGLang's {@code consistent_hashing}: session affinity by headers, in strict priority order.
 * <ol>
 *   <li>{@code X-SMG-Target-Worker: <index>}: that index into the candidate list if it parses, is in range and the
 *       worker is healthy ({@code target_worker_hit}); otherwise <em>no worker</em> ({@code target_worker_miss}, a
 *       503), never a fallback.</li>
 *   <li>{@code X-SMG-Routing-Key}, else the first non-empty of {@code authorization}, {@code x-forwarded-for},
 *       {@code cookie}: ring lookup ({@code routing_key_hit}), walking clockwise past unhealthy workers.</li>
 *   <li>No key: a uniformly random healthy worker ({@code random_fallback}).</li>
 * </ol>
 * The ring (150 virtual nodes per worker, see {@link HashRing}) covers every worker of the model, so a worker leaving
 * moves only its own keys, and they come back when it recovers. Thread-safe.
 */
public final class ConsistentHashingPolicy extends RingPolicy {

    private static final Logger LOG = LoggerFactory.getLogger(ConsistentHashingPolicy.class);
    private static final String NAME = PolicyName.CONSISTENT_HASHING.wireName();
    private static final String[] IMPLICIT_KEY_HEADERS = {"authorization", "x-forwarded-for", "cookie"};

    private final RandomGenerator random;

    public ConsistentHashingPolicy(PolicyEnvironment env) {
        this.random = env.random();
    }

    @Override
    public Decision select(List<Worker> candidates, SelectionContext context) {
        if (candidates.isEmpty()) {
            return Decision.none(NAME, Branches.NO_HEALTHY_WORKERS);
        }
        String target = context.header(SelectionContext.TARGET_WORKER_HEADER);
        if (target != null) {
            return byTarget(candidates, target, NAME);
        }
        String key = routingKey(context);
        List<Worker> healthy = HealthyWorkers.of(candidates);
        if (healthy.isEmpty()) {
            return Decision.none(NAME, Branches.NO_HEALTHY_WORKERS);
        }
        if (key == null) {
            return Decision.of(healthy.get(random.nextInt(healthy.size())), NAME, Branches.RANDOM_FALLBACK);
        }
        Worker w = rings.pick(ModelKey.of(context, healthy), candidates, healthy, key);
        if (w == null) {
            return Decision.none(NAME, Branches.NO_HEALTHY_WORKERS);
        }
        LOG.debug("consistent_hashing: key hashed to {}", w.url());
        return Decision.of(w, NAME, Branches.ROUTING_KEY_HIT);
    }

    /**
     * The strict {@code X-SMG-Target-Worker} rule, shared with bounded_consistent_hashing: the index into the candidate
     * list if it parses, is in range and that worker is healthy, else no worker. Load is never consulted.
     */
    static Decision byTarget(List<Worker> candidates, String target, String policy) {
        int idx;
        try {
            idx = Integer.parseInt(target);
        } catch (NumberFormatException e) {
            return Decision.none(policy, Branches.TARGET_WORKER_MISS);
        }
        if (idx >= 0 && idx < candidates.size() && candidates.get(idx).isHealthy()) {
            return Decision.of(candidates.get(idx), policy, Branches.TARGET_WORKER_HIT);
        }
        return Decision.none(policy, Branches.TARGET_WORKER_MISS);
    }

    /** The explicit routing key, else the first stable implicit one, else null. */
    static String routingKey(SelectionContext context) {
        String key = context.header(SelectionContext.ROUTING_KEY_HEADER);
        return key != null ? key : implicitKey(context);
    }

    /** The first non-empty of {@code authorization}, {@code x-forwarded-for}, {@code cookie}, else null. */
    static String implicitKey(SelectionContext context) {
        String key = null;
        for (int i = 0; key == null && i < IMPLICIT_KEY_HEADERS.length; i++) {
            key = context.header(IMPLICIT_KEY_HEADERS[i]);
        }
        return key;
    }

    /**
     * The worker with this URL, or null. Compares the strings' cached hashes before their characters: worker URLs are
     * mostly of one length with a long common prefix, so at hundreds of candidates the equality checks dominated.
     */
    static Worker find(List<Worker> workers, String url) {
        if (url == null) {
            return null;
        }
        int hash = url.hashCode();
        for (int i = 0, n = workers.size(); i < n; i++) {
            Worker w = workers.get(i);
            String u = w.url();
            if (u == url || (u.hashCode() == hash && u.equals(url))) {
                return w;
            }
        }
        return null;
    }

    @Override
    public String name() {
        return NAME;
    }
}
