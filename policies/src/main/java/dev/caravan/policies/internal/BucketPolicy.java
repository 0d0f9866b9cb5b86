package dev.caravan.policies.internal;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.caravan.policies.BucketConfig;
import dev.caravan.policies.Branches;
import dev.caravan.policies.Decision;
import dev.caravan.policies.LoadBalancingPolicy;
import dev.caravan.policies.Maintainable;
import dev.caravan.policies.PolicyEnvironment;
import dev.caravan.policies.PolicyName;
import dev.caravan.policies.SelectionContext;
import dev.caravan.policies.Worker;
import dev.caravan.policies.fleet.BucketRanges;

/**
 * SGLang's {@code bucket} (meant for P/D prefill pools): workers own ranges of prompt length, so short and long prompts
 * land on different prefill engines, with a character-count guard against hot spots.
 *
 * <ol>
 *   <li>No healthy candidate: no worker ({@code no_healthy_workers}).</li>
 *   <li>{@code chars} = code points of the routing text (0 when none).</li>
 *   <li>If the characters routed per worker within the sliding window ({@code bucketAdjustInterval}) are imbalanced,
 *       {@code max - min > balanceAbsThreshold && max > min * balanceRelThreshold} (strict), the worker with the fewest
 *       ({@code bucket_imbalanced}); otherwise the worker whose length range holds {@code chars}
 *       ({@code bucket_boundary}).</li>
 *   <li>No range found, or the worker found is not a healthy candidate: a random healthy candidate
 *       ({@code random_fallback}). SGLang would return the unhealthy worker, or no worker when its breaker is open; routing
 *       elsewhere is a deliberate difference.</li>
 *   <li>The prompt's characters are added to the chosen worker's window count.</li>
 * </ol>
 * {@link #runMaintenance()} re-cuts the ranges from the window's request sizes (see {@link Bucket}); the gateway runs it
 * every {@code bucketAdjustInterval}. State is per model, created on first use and kept in step with worker add/remove
 * hooks; a candidate the bucket has not seen joins it on sight. Thread-safe: each model's bucket is used under its own
 * monitor, for one choose-and-record step at a time.
 *
 * <p>Replica sync: the workers are ordered by URL instead of the order this replica registered them, so replicas with
 * the same workers start from the same ranges whatever their discovery timing, and only the replica that cuts for the
 * fleet ({@link BucketRanges#cutsForFleet}) re-cuts them; the others adopt its published ranges. The imbalance guard's
 * window stays per replica (docs/design/replica-sync.md, "Rings, buckets and orders").
 */
public final class BucketPolicy implements LoadBalancingPolicy, Maintainable {

    private static final Logger LOG = LoggerFactory.getLogger(BucketPolicy.class);
    private static final String NAME = PolicyName.BUCKET.wireName();

    private final BucketConfig config;
    private final LongSupplier nanoTime;
    private final RandomGenerator random;
    private final ConcurrentHashMap<String, Bucket> buckets = new ConcurrentHashMap<>();
    /** With replica sync: workers in URL order, so every replica starts from the same ranges. */
    private final boolean sortedUrls;
    /** With replica sync: the ranges one replica cuts for the fleet; null alone. */
    private final BucketRanges shared;

    public BucketPolicy(BucketConfig config, PolicyEnvironment env) {
        this.config = config;
        this.nanoTime = env.nanoTime();
        this.random = env.random();
        this.sortedUrls = env.fleet() != null;
        this.shared = env.fleet() == null ? null : env.fleet().buckets();
    }

    @Override
    public Decision select(List<Worker> candidates, SelectionContext context) {
        List<Worker> healthy = HealthyWorkers.of(candidates);
        if (healthy.isEmpty()) {
            return Decision.none(NAME, Branches.NO_HEALTHY_WORKERS);
        }
        String text = context.requestText();
        long chars = text.codePointCount(0, text.length());
        Bucket bucket = bucket(ModelKey.of(context, healthy));
        synchronized (bucket) {
            for (Worker w : candidates) {
                bucket.add(w.url());
            }
            boolean imbalanced = bucket.imbalanced(config.balanceAbsThreshold(), config.balanceRelThreshold());
            String url = imbalanced ? bucket.leastChars() : bucket.boundaryFor(chars);
            Worker chosen = url == null ? null : ConsistentHashingPolicy.find(healthy, url);
            String branch = imbalanced ? Branches.BUCKET_IMBALANCED : Branches.BUCKET_BOUNDARY;
            if (chosen == null) {
                chosen = healthy.get(random.nextInt(healthy.size()));
                branch = Branches.RANDOM_FALLBACK;
            }
            bucket.record(chars, chosen.url(), nanoTime.getAsLong());
            if (LOG.isDebugEnabled()) {
                LOG.debug("bucket: {} chars -> {} ({})", chars, chosen.url(), branch);
            }
            return Decision.of(chosen, NAME, branch);
        }
    }

    private Bucket bucket(String model) {
        Bucket b = buckets.get(model);
        return b != null ? b : buckets.computeIfAbsent(model, m -> new Bucket(config.bucketAdjustInterval().toNanos(),
                sortedUrls));
    }

    /** The model's current ranges, in worker order; for tests and the admin view. */
    Optional<List<Bucket.Boundary>> boundaries(String model) {
        Bucket b = buckets.get(model);
        if (b == null) {
            return Optional.empty();
        }
        synchronized (b) {
            return Optional.of(b.boundaries());
        }
    }

    /** Every model's current ranges, in worker order (the replicas' agreement is checked against this). */
    public Map<String, List<BucketRanges.Range>> ranges() {
        Map<String, List<BucketRanges.Range>> out = new TreeMap<>();
        buckets.forEach((model, b) -> {
            synchronized (b) {
                out.put(model, b.boundaries().stream().map(x -> new BucketRanges.Range(x.url(), x.lo(), x.hi()))
                        .toList());
            }
        });
        return out;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean needsRequestText() {
        return true;
    }

    @Override
    public void onWorkerAdded(Worker worker) {
        Bucket b = bucket(worker.modelId());
        synchronized (b) {
            b.add(worker.url());
        }
    }

    @Override
    public void onWorkerRemoved(Worker worker) {
        for (Bucket b : buckets.values()) {
            synchronized (b) {
                b.remove(worker.url());
            }
        }
    }

    @Override
    public void reset() {
        buckets.clear();
    }

    @Override
    public Duration maintenanceInterval() {
        return config.bucketAdjustInterval();
    }

    /**
     * Re-cuts every model's length ranges from its window; with replica sync only the replica that cuts for the fleet
     * does, and publishes them, while the others adopt the published ranges.
     */
    @Override
    public void runMaintenance() {
        long now = nanoTime.getAsLong();
        boolean cuts = shared == null || shared.cutsForFleet();
        buckets.forEach((model, b) -> {
            if (cuts) {
                recut(model, b, now);
            } else {
                adopt(model, b, now);
            }
        });
    }

    private void recut(String model, Bucket b, long now) {
        List<BucketRanges.Range> cut = null;
        synchronized (b) {
            if (b.adjust(now)) {
                LOG.info("bucket: re-cut length ranges for '{}': {}", model, b.boundaries());
                cut = b.boundaries().stream().map(x -> new BucketRanges.Range(x.url(), x.lo(), x.hi())).toList();
            }
        }
        if (cut != null && shared != null) {
            shared.publish(model, cut);
        }
    }

    private void adopt(String model, Bucket b, long now) {
        List<BucketRanges.Range> published = shared.latest(model);
        synchronized (b) {
            b.expire(now); // the window still feeds the imbalance guard
            if (published != null && b.adopt(published.stream()
                    .map(r -> new Bucket.Boundary(r.url(), r.lo(), r.hi())).toList())) {
                LOG.info("bucket: adopted the fleet's length ranges for '{}': {}", model, b.boundaries());
            }
        }
    }
}
