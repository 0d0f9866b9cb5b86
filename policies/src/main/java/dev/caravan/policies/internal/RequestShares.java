package dev.caravan.policies.internal;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

import dev.caravan.policies.Worker;

/**
 * cache_aware's {@code --request-share-margin}: each worker's recent requests, so a hit does not go to an engine that
 * already carries more than its share of the traffic.
 *
 * <ul>
 *   <li><b>Recent requests.</b> Every request the policy sends to a worker counts 1, decayed with a half-life of
 *       {@link #HALF_LIFE_NANOS} on the injected clock: a request rate over the last minute or so, not the in-flight
 *       count the imbalance guard reads.</li>
 *   <li><b>Over its share</b> ({@link #over}): a worker's count is above the healthy candidates' mean by more than
 *       {@code margin} times the mean <em>and</em> by more than {@link #MIN_EXCESS} requests, so a quiet fleet, where a
 *       few requests make any engine look busy, keeps its affinity.</li>
 *   <li><b>Where the hit goes instead</b> ({@link #divert}): among the healthy workers not over their share, the one
 *       holding the longest part of the prompt, then the fewest recent requests, then the earlier in the list; the
 *       prefix is then held by a second engine, which takes the next overflow while it has room.</li>
 * </ul>
 *
 * <p>Why a recent rate and not the in-flight load: a fleet whose engines serve a few dozen tenants each places each
 * tenant once, at its first request, by the in-flight load of that instant; that is close to a random placement, and
 * the tenants stay where they landed. The counts see what the placement did and correct it at the hits.
 *
 * <p>Thread-safe: one lock over the counters, held for one pass over the candidates per request.
 */
final class RequestShares {

    /** Counts halve every 30 s without requests. */
    static final long HALF_LIFE_NANOS = 30_000_000_000L;
    /** A worker is over its share only when its count exceeds the mean by more than this many requests. */
    static final double MIN_EXCESS = 16;

    /** Past this many half-lives from {@link #base}, every count is rebased (scaled values stay far from overflow). */
    static final int REBASE_HALF_LIVES = 256;

    private final double margin;
    private final LongSupplier nanoTime;
    /**
     * Counts by worker URL, each held as its value scaled to {@link #base}: {@code value * 2^((stamp - base) / half-life)}.
     * Every count decays by the same factor, so the value of any of them now is the scaled one times one factor,
     * {@code 2^(-(now - base) / half-life)}, computed once per call however many workers are summed: the mean over
     * the candidates costs a map lookup per worker, not a power.
     */
    private final Map<String, Count> counts = new HashMap<>();
    private long base;

    RequestShares(double margin, LongSupplier nanoTime) {
        this.margin = margin;
        this.nanoTime = nanoTime;
        this.base = nanoTime.getAsLong();
    }

    /** Counts one request sent to the worker at {@code workerUrl}. */
    synchronized void record(String workerUrl) {
        long now = nanoTime.getAsLong();
        if (now - base > REBASE_HALF_LIVES * HALF_LIFE_NANOS) {
            rebase(now);
        }
        counts.computeIfAbsent(workerUrl, u -> new Count()).scaled += growth(now);
    }

    /** Whether {@code w}'s recent requests exceed the mean over {@code healthy} by the margin and the minimum. */
    synchronized boolean over(Worker w, List<Worker> healthy) {
        if (healthy.size() < 2) {
            return false;
        }
        double decay = decay(nanoTime.getAsLong());
        double own = valueOf(w.url(), decay);
        double mean = mean(healthy, decay);
        return own - mean > margin * mean && own - mean > MIN_EXCESS;
    }

    /**
     * The worker a hit on an over-share worker goes to: among {@code healthy} not over their share, the longest held
     * prefix of the prompt ({@code heldChars} by worker URL), then the fewest recent requests, then list order.
     */
    synchronized Worker divert(List<Worker> healthy, Map<String, Long> heldChars) {
        double decay = decay(nanoTime.getAsLong());
        double mean = mean(healthy, decay);
        Worker best = null;
        long bestHeld = -1;
        double bestCount = Double.MAX_VALUE;
        for (Worker w : healthy) {
            double c = valueOf(w.url(), decay);
            if (c - mean > margin * mean && c - mean > MIN_EXCESS) {
                continue;
            }
            long held = heldChars.getOrDefault(w.url(), 0L);
            if (held > bestHeld || (held == bestHeld && c < bestCount)) {
                best = w;
                bestHeld = held;
                bestCount = c;
            }
        }
        return best;
    }

    /** {@code workerUrl}'s recent requests now (decayed), for tests and logs. */
    synchronized double recent(String workerUrl) {
        return valueOf(workerUrl, decay(nanoTime.getAsLong()));
    }

    synchronized void removeWorker(String workerUrl) {
        counts.remove(workerUrl);
    }

    synchronized void clear() {
        counts.clear();
    }

    private double mean(List<Worker> healthy, double decay) {
        double sum = 0;
        for (int i = 0, n = healthy.size(); i < n; i++) {
            Count c = counts.get(healthy.get(i).url());
            if (c != null) {
                sum += c.scaled;
            }
        }
        return sum * decay / healthy.size();
    }

    private double valueOf(String url, double decay) {
        Count c = counts.get(url);
        return c == null ? 0 : c.scaled * decay;
    }

    /** What a request counted at {@code now} weighs against the base: {@code 2^((now - base) / half-life)}. */
    private double growth(long now) {
        return Math.pow(2.0, (double) (now - base) / HALF_LIFE_NANOS);
    }

    /** The factor from a scaled count to its value at {@code now}: {@code 2^(-(now - base) / half-life)}. */
    private double decay(long now) {
        return Math.pow(2.0, (double) (base - now) / HALF_LIFE_NANOS);
    }

    /** Moves the base to {@code now}, each count becoming its value now. */
    private void rebase(long now) {
        double decay = decay(now);
        for (Count c : counts.values()) {
            c.scaled *= decay;
        }
        base = now;
    }

    /** A count scaled to the base, see {@link #counts}. */
    private static final class Count {
        private double scaled;
    }
}
