package dev.caravan.policies.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import java.util.function.ToLongFunction;
import java.util.random.RandomGenerator;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.caravan.policies.Branches;
import dev.caravan.policies.Decision;
import dev.caravan.policies.FleetAgreement;
import dev.caravan.policies.LoadBalancingPolicy;
import dev.caravan.policies.Maintainable;
import dev.caravan.policies.ManualConfig;
import dev.caravan.policies.PolicyEnvironment;
import dev.caravan.policies.PolicyName;
import dev.caravan.policies.SelectionContext;
import dev.caravan.policies.SessionSharing;
import dev.caravan.policies.Worker;
import dev.caravan.policies.fleet.SessionClaim;
import dev.caravan.policies.fleet.SessionStore;

/**
 * SGLang's {@code manual}: sticky sessions keyed by {@code X-SMG-Routing-Key}. Stronger than consistent hashing: keys
 * never move when workers are added, only when their worker stops being usable.
 *
 * <ul>
 *   <li>No healthy candidate: no worker ({@code no_healthy_workers}).</li>
 *   <li>No routing key: a new choice by the assignment mode, not remembered ({@code no_routing_id}).</li>
 *   <li>Unknown key: a new choice, remembered ({@code vacant}).</li>
 *   <li>Known key: its last-access time is refreshed; the first of its remembered workers (at most
 *       {@value #MAX_CANDIDATES}, oldest first) that is a healthy candidate wins ({@code occupied_hit}); if none is, a
 *       new choice is appended, dropping the oldest beyond {@value #MAX_CANDIDATES} ({@code occupied_miss}). So a key
 *       fails over to a second worker, sticks there, and returns to the first when it recovers.</li>
 * </ul>
 * Assignment modes: {@code random}; {@code min_load} (fewest in-flight requests); {@code min_group} (fewest routing keys
 * assigned). Ties among minima are broken uniformly at random, as SGLang's {@code select_min_by}. Deliberate difference
 * in {@code min_group}: SGLang counts the distinct keys with requests in flight on the worker (a counter its load guard
 * maintains); this policy counts the remembered keys that list the worker, which it can keep exact by itself and which
 * is the number of sessions the worker is expected to serve.
 *
 * <p>Idle keys (not seen for at least {@code maxIdle}) are forgotten by {@link #runMaintenance()}, which the gateway runs
 * every {@code evictionInterval}; disabled when either is zero. Time comes from the injected {@link LongSupplier}.
 * Thread-safe: each key's entry is only changed inside {@link ConcurrentHashMap#compute} for that key; its worker list
 * is an immutable list replaced on change, so {@link #agreeBefore} may read it without the lock.
 *
 * <p>Replica sync ({@link PolicyEnvironment#fleet()} with sessions; docs/design/replica-sync.md): keys are held under
 * their fleet key ({@link SessionStore#keyOf}, a keyed hash). A key this replica cannot route from its own entry (unknown,
 * or none of its workers usable) first claims it fleet-wide ({@link #agreeBefore}): the proposal is this policy's choice,
 * and the fleet keeps an existing usable assignment, so concurrent first requests on two replicas get one worker.
 * {@code select} then follows the claimed entry with the claim's branch. Peers' changes to known keys arrive through
 * {@link SessionSharing}. A failed claim leaves the decision to this replica alone.
 */
public final class ManualPolicy implements LoadBalancingPolicy, Maintainable, FleetAgreement, SessionSharing {

    static final int MAX_CANDIDATES = 2;

    private static final Logger LOG = LoggerFactory.getLogger(ManualPolicy.class);
    private static final String NAME = PolicyName.MANUAL.wireName();

    private final ManualConfig config;
    private final LongSupplier nanoTime;
    private final RandomGenerator random;
    private final ConcurrentHashMap<String, Entry> routes = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, AtomicInteger> keysPerWorker = new ConcurrentHashMap<>();
    /** The fleet's assignments with replica sync, else null. */
    private final SessionStore sessions;

    /** A key's remembered workers (oldest first) and last access; changed only inside {@code compute}. */
    private static final class Entry {
        volatile List<String> urls = List.of();
        long lastAccessNanos;
        /** The fleet entry's version this one reflects (replica sync). */
        long version = -1;
        /** The branch of the claim that just filled this entry, for the request that made it; then null. */
        String claimedBranch;
    }

    /** What {@code compute} decided, carried out of the lambda. */
    private static final class Outcome {
        Worker worker;
        String branch;
    }

    public ManualPolicy(ManualConfig config, PolicyEnvironment env) {
        this.config = config;
        this.nanoTime = env.nanoTime();
        this.random = env.random();
        this.sessions = env.fleet() == null ? null : env.fleet().sessions();
    }

    @Override
    public CompletionStage<Void> agreeBefore(List<Worker> candidates, SelectionContext context) {
        if (sessions == null) {
            return null;
        }
        String key = context.header(SelectionContext.ROUTING_KEY_HEADER);
        List<Worker> healthy = HealthyWorkers.of(candidates);
        if (key == null || healthy.isEmpty()) {
            return null;
        }
        String fleetKey = sessions.keyOf(context.model(), key);
        Entry known = routes.get(fleetKey);
        if (known != null && firstUsable(known.urls, candidates) != null) {
            return null;
        }
        List<String> usable = new ArrayList<>(healthy.size());
        healthy.forEach(w -> usable.add(w.url()));
        return sessions.claim(context.model(), fleetKey, usable, choose(healthy).url())
                .handle((claim, failure) -> {
                    if (failure != null) {
                        LOG.debug("manual: fleet claim failed ({}); this replica decides alone", failure.toString());
                    } else {
                        adopt(fleetKey, claim);
                    }
                    return null;
                });
    }

    private void adopt(String fleetKey, SessionClaim claim) {
        long now = nanoTime.getAsLong();
        routes.compute(fleetKey, (k, entry) -> {
            Entry e = entry == null ? new Entry() : entry;
            if (claim.version() >= e.version) {
                replace(e, claim.workers());
                e.version = claim.version();
                e.claimedBranch = claim.branch();
            }
            e.lastAccessNanos = now;
            return e;
        });
    }

    @Override
    public void sessionChanged(String key, List<String> workerUrls, long version) {
        routes.computeIfPresent(key, (k, e) -> {
            if (version > e.version) {
                replace(e, workerUrls);
                e.version = version;
            }
            return e;
        });
    }

    @Override
    public void sessionRemoved(String key) {
        routes.computeIfPresent(key, (k, e) -> {
            e.urls.forEach(this::forget);
            return null;
        });
    }

    /** Replaces the entry's workers, keeping the per-worker key counts exact. */
    private void replace(Entry e, List<String> urls) {
        e.urls.forEach(this::forget);
        List<String> next = List.copyOf(urls.size() > MAX_CANDIDATES ? urls.subList(urls.size() - MAX_CANDIDATES,
                urls.size()) : urls);
        next.forEach(u -> keysPerWorker.computeIfAbsent(u, x -> new AtomicInteger()).incrementAndGet());
        e.urls = next;
    }

    @Override
    public Decision select(List<Worker> candidates, SelectionContext context) {
        List<Worker> healthy = HealthyWorkers.of(candidates);
        if (healthy.isEmpty()) {
            return Decision.none(NAME, Branches.NO_HEALTHY_WORKERS);
        }
        String key = context.header(SelectionContext.ROUTING_KEY_HEADER);
        if (key == null) {
            return Decision.of(choose(healthy), NAME, Branches.NO_ROUTING_ID);
        }
        long now = nanoTime.getAsLong();
        Outcome out = new Outcome();
        String routeKey = sessions == null ? key : sessions.keyOf(context.model(), key);
        routes.compute(routeKey, (k, entry) -> {
            if (entry == null) {
                entry = new Entry();
                out.worker = choose(healthy);
                out.branch = Branches.VACANT;
                remember(entry, out.worker.url());
            } else {
                out.worker = firstUsable(entry.urls, candidates);
                out.branch = entry.claimedBranch != null ? entry.claimedBranch : Branches.OCCUPIED_HIT;
                entry.claimedBranch = null;
                if (out.worker == null) {
                    out.worker = choose(healthy);
                    out.branch = Branches.OCCUPIED_MISS;
                    remember(entry, out.worker.url());
                }
            }
            entry.lastAccessNanos = now;
            return entry;
        });
        if (sessions != null) {
            sessions.touched(routeKey);
        }
        LOG.debug("manual: routing key -> {} ({})", out.worker.url(), out.branch); // the key may identify a user
        return Decision.of(out.worker, NAME, out.branch);
    }

    /** The first remembered URL whose candidate is healthy (SGLang looks each URL up in the candidate list). */
    private static Worker firstUsable(List<String> urls, List<Worker> candidates) {
        for (String url : urls) {
            Worker w = ConsistentHashingPolicy.find(candidates, url);
            if (w != null && w.isHealthy()) {
                return w;
            }
        }
        return null;
    }

    private void remember(Entry entry, String url) {
        List<String> next = new ArrayList<>(entry.urls);
        while (next.size() >= MAX_CANDIDATES) {
            forget(next.remove(0));
        }
        next.add(url);
        entry.urls = List.copyOf(next);
        keysPerWorker.computeIfAbsent(url, u -> new AtomicInteger()).incrementAndGet();
    }

    private void forget(String url) {
        AtomicInteger n = keysPerWorker.get(url);
        if (n != null) {
            n.decrementAndGet();
        }
    }

    private Worker choose(List<Worker> healthy) {
        return switch (config.assignmentMode()) {
            case RANDOM -> healthy.get(random.nextInt(healthy.size()));
            case MIN_LOAD -> minBy(healthy, Worker::load);
            case MIN_GROUP -> minBy(healthy, w -> keysAssigned(w.url()));
        };
    }

    /** The minimum by {@code value}; ties broken uniformly at random. */
    private Worker minBy(List<Worker> healthy, ToLongFunction<Worker> value) {
        List<Worker> best = new ArrayList<>(healthy.size());
        long min = Long.MAX_VALUE;
        for (Worker w : healthy) {
            long v = value.applyAsLong(w);
            if (v < min) {
                min = v;
                best.clear();
            }
            if (v == min) {
                best.add(w);
            }
        }
        return best.size() == 1 ? best.get(0) : best.get(random.nextInt(best.size()));
    }

    /** Routing keys currently remembered with this worker among their candidates. */
    public int keysAssigned(String workerUrl) {
        AtomicInteger n = keysPerWorker.get(workerUrl);
        return n == null ? 0 : n.get();
    }

    /** Routing keys remembered (SGLang's {@code smg_manual_policy_cache_entries}). */
    public int routingKeys() {
        return routes.size();
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Duration maintenanceInterval() {
        return config.ttlEnabled() ? config.evictionInterval() : Duration.ZERO;
    }

    /** Forgets keys idle for at least {@code maxIdle}. */
    @Override
    public void runMaintenance() {
        if (!config.ttlEnabled()) {
            return;
        }
        long now = nanoTime.getAsLong();
        long maxIdle = config.maxIdle().toNanos();
        int[] evicted = {0};
        for (String key : routes.keySet()) {
            routes.computeIfPresent(key, (k, e) -> {
                if (now - e.lastAccessNanos < maxIdle) {
                    return e;
                }
                e.urls.forEach(this::forget);
                evicted[0]++;
                return null;
            });
        }
        if (evicted[0] > 0) {
            LOG.info("manual: forgot {} idle routing keys, {} remain (max idle {}s)", evicted[0], routes.size(),
                    config.maxIdle().toSeconds());
        }
    }

    @Override
    public void reset() {
        routes.clear();
        keysPerWorker.clear();
    }
}
