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

    private final double margin;
    private final LongSupplier nanoTime;
    private final Map<String, Count> counts = new HashMap<>();

    RequestShares(double margin, LongSupplier nanoTime) {
        this.margin = margin;
        this.nanoTime = nanoTime;
    }

    /** Counts one request sent to the worker at {@code workerUrl}. */
    synchronized void record(String workerUrl) {
        long now = nanoTime.getAsLong();
        counts.computeIfAbsent(workerUrl, u -> new Count(now)).add(now);
    }

    /** Whether {@code w}'s recent requests exceed the mean over {@code healthy} by the margin and the minimum. */
    synchronized boolean over(Worker w, List<Worker> healthy) {
        if (healthy.size() < 2) {
            return false;
        }
        long now = nanoTime.getAsLong();
        double own = valueOf(w.url(), now);
        double mean = mean(healthy, now);
        return own - mean > margin * mean && own - mean > MIN_EXCESS;
    }

    /**
     * The worker a hit on an over-share worker goes to: among {@code healthy} not over their share, the longest held
     * prefix of the prompt ({@code heldChars} by worker URL), then the fewest recent requests, then list order.
     */
    synchronized Worker divert(List<Worker> healthy, Map<String, Long> heldChars) {
        long now = nanoTime.getAsLong();
        double mean = mean(healthy, now);
        Worker best = null;
        long bestHeld = -1;
        double bestCount = Double.MAX_VALUE;
        for (Worker w : healthy) {
            double c = valueOf(w.url(), now);
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
        return valueOf(workerUrl, nanoTime.getAsLong());
    }

    synchronized void removeWorker(String workerUrl) {
        counts.remove(workerUrl);
    }

    synchronized void clear() {
        counts.clear();
    }

    private double mean(List<Worker> healthy, long now) {
        double sum = 0;
        for (Worker w : healthy) {
            sum += valueOf(w.url(), now);
        }
        return sum / healthy.size();
    }

    private double valueOf(String url, long now) {
        Count c = counts.get(url);
        return c == null ? 0 : c.at(now);
    }

    /** A count decayed lazily: its value at {@code stamp}. */
    private static final class Count {
        private double value;
        private long stamp;

        Count(long now) {
            this.stamp = now;
        }

        void add(long now) {
            value = at(now) + 1;
            stamp = Math.max(stamp, now);
        }

        double at(long now) {
            long age = now - stamp;
            return age <= 0 ? value : value * Math.pow(0.5, (double) age / HALF_LIFE_NANOS);
        }
    }
}
