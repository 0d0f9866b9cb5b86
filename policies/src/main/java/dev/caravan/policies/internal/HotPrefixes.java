package dev.caravan.policies.internal;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongPredicate;
import java.util.function.LongSupplier;
import java.util.function.ToIntFunction;

import dev.caravan.policies.Worker;
import dev.caravan.policies.tree.ApproximateRadixTree;

/**
 * cache_aware's {@code --hot-prefix-replication} (Preble-style): a prefix whose recent load exceeds
 * one engine's fair share is held by {@code k} engines and its requests are spread over them, {@code k} following the
 * load up at once and down after {@link #SHRINK_AFTER_NANOS} of lower load.
 *
 * <ul>
 *   <li><b>Which prefix.</b> One of the prompt's shared branch points in its model's tree
 *       ({@link ApproximateRadixTree#sharedBranchPoints} with {@value #CANDIDATE_PARTS}·N parts, N the healthy
 *       candidates): a preamble that requests branch off from, or a hot tenant's system prompt. Of nested ones, the
 *       shallowest that alone makes the request a hit, else the deepest ({@link #keyPoint}).</li>
 *   <li><b>Its load.</b> Every request keyed to it counts, in requests per second decayed
 *       with a half-life of {@link #HALF_LIFE_NANOS} on the injected clock, against the model's requests since the
 *       prefix was first seen, decayed the same way: {@code share = prefix / total}; k stays 1 until the model has
 *       routed {@value #MIN_EVIDENCE}·N requests since then (counted, not decayed: slow traffic gets there too).</li>
 *   <li><b>k</b> ({@link #holdersFor}): 1 while {@code share <= 1/N}; above, the fewest holders that keep each within
 *       {@link #BALANCE_BOUND} of the mean when the rest of the traffic spreads evenly,
 *       {@code min(N, ceil(share × N / (share + 0.15)))} (40 % on 8 engines: 6). {@code k >= 2} makes it hot: its
 *       holders are the engines already holding it in the tree, then the least-loaded others. A higher k adds the
 *       least-loaded non-holders at once; a lower k drops the last-added holders once it has stayed lower for
 *       {@link #SHRINK_AFTER_NANOS} (any higher or equal target restarts that wait). At k = 1 the prefix is no longer
 *       replicated and routes as cache_aware does without this option.</li>
 *   <li><b>Which requests move.</b> Only those that the prefix alone makes a hit (the caller's predicate over the
 *       shared length): a conversation whose own history beyond the prefix is a hit keeps its worker. The holders
 *       take turns ({@link Prefix#spread}). Holders that left or turned unhealthy are replaced by the least-loaded
 *       healthy non-holders.</li>
 * </ul>
 *
 * <p>Thread-safe: one lock over the counters and holder lists, held for a few map operations per request; the tree walk
 * runs before it.
 */
final class HotPrefixes {

    /** Load estimates halve every 10 s without requests. */
    static final long HALF_LIFE_NANOS = 10_000_000_000L;
    /** k shrinks after its target stayed lower for 30 s (three half-lives: the load estimate has settled). */
    static final long SHRINK_AFTER_NANOS = 30_000_000_000L;
    /**
     * Branch points through which at least 1/N of a model's routed prompts passed are tracked (below that k is 1). Not
     * 1/(2N): a preamble every conversation shares then has deeper branch points (conversations 1, 10–19, 100–199...)
     * above 1/(2N) that split its load into prefixes each too light to replicate, and the multiturn bench's busiest
     * worker takes a larger share.
     */
    static final int CANDIDATE_PARTS = 1;
    /** k stays 1 until the model has routed this many requests per worker since the prefix was first seen. */
    static final int MIN_EVIDENCE = 4;
    /** The max/mean share of requests per worker that k is chosen to keep within. */
    static final double BALANCE_BOUND = 1.15;

    private final LongSupplier nanoTime;
    private final Map<String, Rate> totals = new HashMap<>();
    private final Map<Key, Prefix> prefixes = new HashMap<>();

    HotPrefixes(LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
    }

    /**
     * Records this request against its model and hot prefix; returns the holder to route it to, or null when it is not
     * the prefix alone that makes it a hit, or the prefix is not hot.
     *
     * @param onlyByPrefix given the shared prefix's length in code points: whether the prompt's match is a hit as a
     *                     whole but not on what it holds beyond that prefix
     */
    Worker pick(String model, ApproximateRadixTree tree, String text, List<Worker> healthy,
                ToIntFunction<Worker> loadOf, LongPredicate onlyByPrefix) {
        int n = healthy.size();
        long shared = keyPoint(tree.sharedBranchPoints(text, CANDIDATE_PARTS * n), onlyByPrefix);
        long now = nanoTime.getAsLong();
        synchronized (this) {
            Rate all = totals.computeIfAbsent(model, m -> new Rate());
            double total = all.add(now);
            if (shared == 0) {
                return null;
            }
            Prefix p = prefixes.computeIfAbsent(key(model, text, shared),
                    k -> new Prefix(total - 1, all.count - 1, now));
            double since = total - p.totalBefore * decay(now - p.since);
            double share = p.load.add(now) / since;
            int target = all.count - p.countBefore < MIN_EVIDENCE * n ? 1 : holdersFor(share, n);
            if (!p.resize(target, now, healthy, loadOf, tree, text, shared)) {
                return null;
            }
            return onlyByPrefix.test(shared) ? p.spread(healthy) : null;
        }
    }

    /**
     * The branch point a request counts against: the shallowest that alone makes it a hit, so a hot prompt's requests
     * all count against the prompt although some also pass its own deeper branch points ("hot prompt + Q1" for requests
     * 1, 10-19, 100-199... while those carry 1/N of the traffic); else (a miss, or a conversation whose own history
     * hits) the deepest, as a preamble's later turns do. 0 for none.
     */
    static long keyPoint(long[] points, LongPredicate onlyByPrefix) {
        for (long p : points) {
            if (onlyByPrefix.test(p)) {
                return p;
            }
        }
        return points.length == 0 ? 0 : points[points.length - 1];
    }

    /**
     * k for a prefix with this share of the traffic over {@code n} workers: 1 (not hot) up to one worker's fair share;
     * above it, the fewest holders whose part of it plus an even part of the rest stays within {@link #BALANCE_BOUND}
     * of the fleet's mean: {@code share / k + (1 - share) / n <= BALANCE_BOUND / n}, at most n.
     */
    static int holdersFor(double share, int n) {
        if (share * n <= 1) {
            return 1;
        }
        return (int) Math.min(n, Math.ceil(share * n / (BALANCE_BOUND - 1 + share) - 1e-9));
    }

    /** Forgets the load of prefixes that are not replicated and saw no request for {@link #SHRINK_AFTER_NANOS}. */
    synchronized void prune() {
        long now = nanoTime.getAsLong();
        prefixes.values().removeIf(p -> p.holders.isEmpty() && now - p.load.at >= SHRINK_AFTER_NANOS);
    }

    /** Forgets everything (the policy's reset). */
    synchronized void clear() {
        totals.clear();
        prefixes.clear();
    }

    /** A worker left: it is no holder any more (it is replaced on the prefix's next request). */
    synchronized void removeWorker(String url) {
        for (Prefix p : prefixes.values()) {
            p.remove(url);
        }
    }

    private static Key key(String model, String text, long chars) {
        int end = text.offsetByCodePoints(0, (int) chars);
        long h = 0xcbf29ce484222325L; // FNV-1a over the UTF-16 units
        for (int i = 0; i < end; i++) {
            h = (h ^ text.charAt(i)) * 0x100000001b3L;
        }
        return new Key(model, chars, h);
    }

    private record Key(String model, long chars, long hash) {
    }

    private static double decay(long nanos) {
        return Math.pow(0.5, (double) nanos / HALF_LIFE_NANOS);
    }

    /** An exponentially decayed event count: events per half-life, up to a constant. */
    private static final class Rate {
        private double value;
        private long at;
        private boolean started;
        /** Events, not decayed. */
        private long count;

        double add(long now) {
            count++;
            value = started ? value * decay(now - at) + 1 : 1;
            at = now;
            started = true;
            return value;
        }
    }

    /** One tracked prefix: its load and, while hot, its holders (worker URLs, oldest first). */
    private static final class Prefix {
        final Rate load = new Rate();
        /**
         * The model's decayed total just before the prefix was first seen, and when: its share is taken over the
         * model's requests since then, so a prefix first seen late is not under-estimated until its counter catches up.
         */
        final double totalBefore;
        final long countBefore;
        final long since;
        final List<String> holders = new ArrayList<>();
        /** The holder the next request goes to (modulo the holder count). */
        int next;
        /** When the target first went below the holder count without rising since; -1 when it has not. */
        long lowerSince = -1;

        Prefix(double totalBefore, long countBefore, long since) {
            this.totalBefore = totalBefore;
            this.countBefore = countBefore;
            this.since = since;
        }

        /** Applies the target; false when the prefix is not (or no longer) hot. */
        boolean resize(int target, long now, List<Worker> healthy, ToIntFunction<Worker> loadOf,
                       ApproximateRadixTree tree, String text, long shared) {
            holders.removeIf(url -> ConsistentHashingPolicy.find(healthy, url) == null);
            if (holders.isEmpty() && target < 2) {
                return false;
            }
            int k = holders.size();
            if (target >= k) {
                lowerSince = -1;
            } else if (lowerSince < 0) {
                lowerSince = now;
            } else if (now - lowerSince >= SHRINK_AFTER_NANOS) {
                while (holders.size() > (target < 2 ? 0 : target)) {
                    remove(holders.get(holders.size() - 1));
                }
                lowerSince = -1;
                if (holders.isEmpty()) {
                    return false;
                }
            }
            if (target > holders.size()) {
                grow(target, healthy, loadOf, tree.matchedCharsByTenant(text), shared);
            }
            return true;
        }

        private void grow(int target, List<Worker> healthy, ToIntFunction<Worker> loadOf, Map<String, Long> held,
                          long shared) {
            while (holders.size() < target) {
                Worker best = null;
                for (Worker w : healthy) {
                    if (holders.contains(w.url())) {
                        continue;
                    }
                    if (best == null || better(w, best, loadOf, held, shared)) {
                        best = w;
                    }
                }
                if (best == null) {
                    return;
                }
                holders.add(best.url());
            }
        }

        /** A worker already holding the prefix first, then the less loaded, then the earlier. */
        private static boolean better(Worker w, Worker best, ToIntFunction<Worker> loadOf, Map<String, Long> held,
                                      long shared) {
            boolean wHolds = held.getOrDefault(w.url(), 0L) >= shared;
            boolean bestHolds = held.getOrDefault(best.url(), 0L) >= shared;
            if (wHolds != bestHolds) {
                return wHolds;
            }
            return loadOf.applyAsInt(w) < loadOf.applyAsInt(best);
        }

        /**
         * The next holder in rotation: each gets 1/k of the prefix's requests. Not the least loaded: at about one
         * request in flight per engine that count is noise, and following it gave one holder 0.16 of all requests
         * and another 0.12 through the gateway; a holder that does fall behind is the imbalance guard's to catch.
         */
        Worker spread(List<Worker> healthy) {
            next = next % holders.size();
            return ConsistentHashingPolicy.find(healthy, holders.get(next++));
        }

        void remove(String url) {
            holders.remove(url);
        }
    }
}
