package dev.caravan.policies.internal;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.LongSupplier;
import java.util.function.ToIntFunction;

import dev.caravan.policies.Worker;

/**
 * cache_aware's {@code --prefill-backlog-ratio}: per worker, the uncached prompt characters of the requests
 * this policy sent it that have not produced a first token yet, an estimate of the prefill work a new request would
 * wait behind (engines prefill in arrival order). An entry is added when a decision is made, with the characters the
 * policy's tree did not hold for that worker then, and removed by the decision's first-token action: the gateway runs
 * it on the engine's first response bytes (the first streamed event; a non-streamed response only at its end) or,
 * failing that, when the request's lease is released. Each worker's entries are a {@link PrefillLane}, which credits
 * the prefill in progress with the work done at the worker's measured speed.
 *
 * <p>{@link #divert} is the rule: a cache hit on {@code holder} costs {@code backlog(holder) + uncached(holder)}; the
 * cheapest other healthy worker costs {@code backlog(w) + uncached(w)}. The request leaves the holder only when the
 * holder costs more than {@code ratio} times the alternative <em>and</em> more than the largest of this and the last
 * {@value #WINDOW} prompts (what a cold placement, round robin's, pays for the longest recent prompt without
 * queueing): a hit waits while its expected prefill wait stays within that, so equal-sized prompts (b2b) and short
 * waits keep their affinity and placements do not churn. Thread-safe: each lane is synchronized, an entry ends once;
 * the window of prompt sizes is written racily, which can only blur which recent prompt is the largest.
 */
final class PrefillBacklog {

    /** How many recent prompt sizes the cold-placement reference is the largest of. */
    static final int WINDOW = 256;

    private final double ratio;
    private final LongSupplier nanoTime;
    private final ConcurrentHashMap<String, PrefillLane> pending = new ConcurrentHashMap<>();
    private final AtomicLongArray recent = new AtomicLongArray(WINDOW);
    private final AtomicInteger next = new AtomicInteger();

    /** {@code ratio} >= 1: how much dearer the holder must be than the alternative before a hit leaves it. */
    PrefillBacklog(double ratio, LongSupplier nanoTime) {
        this.ratio = ratio;
        this.nanoTime = nanoTime;
    }

    /** The uncached characters still to prefill on {@code url} now ({@link PrefillLane#remaining}; 0 when none). */
    long of(String url) {
        PrefillLane lane = pending.get(url);
        return lane == null ? 0 : lane.remaining(nanoTime.getAsLong());
    }

    /**
     * Records a decision for {@code url}: the prompt's {@code input} characters join the recent sizes and its
     * {@code uncached} characters the worker's backlog; returns the action that removes them again (once, however
     * often it runs), to run at the request's first token.
     */
    Runnable add(String url, long input, long uncached) {
        recent.set(Math.floorMod(next.getAndIncrement(), WINDOW), input);
        PrefillLane lane = pending.computeIfAbsent(url, u -> new PrefillLane());
        Object token = lane.add(nanoTime.getAsLong(), uncached);
        AtomicBoolean done = new AtomicBoolean();
        return () -> {
            if (done.compareAndSet(false, true)) {
                lane.end(token, nanoTime.getAsLong());
            }
        };
    }

    /** The largest of the last {@value #WINDOW} prompts, in characters (0 before the first). */
    long recentLargest() {
        long max = 0;
        for (int i = 0; i < WINDOW; i++) {
            max = Math.max(max, recent.get(i));
        }
        return max;
    }

    /**
     * The worker to send a cache hit on {@code holder} to instead, or null to keep the holder.
     *
     * @param holderMatched the characters of the prompt the holder holds
     * @param healthy       the healthy candidates (holder among them)
     * @param matched       per worker URL, the characters of the prompt its tree holds (absent: none)
     * @param input         the prompt's characters
     * @param loadOf        the policy's load, to break ties between equally cheap alternatives (then list order)
     */
    Worker divert(Worker holder, long holderMatched, List<Worker> healthy, Map<String, Long> matched, long input,
                  ToIntFunction<Worker> loadOf) {
        long holderCost = of(holder.url()) + Math.max(0, input - holderMatched);
        if (holderCost <= Math.max(input, recentLargest())) {
            return null;
        }
        Worker best = null;
        long bestCost = Long.MAX_VALUE;
        for (Worker w : healthy) {
            if (w == holder) {
                continue;
            }
            long cost = of(w.url()) + Math.max(0, input - matched.getOrDefault(w.url(), 0L));
            if (cost < bestCost || (cost == bestCost && loadOf.applyAsInt(w) < loadOf.applyAsInt(best))) {
                best = w;
                bestCost = cost;
            }
        }
        return best != null && holderCost > ratio * bestCost ? best : null;
    }

    /** A worker left: its entries are forgotten (their pending actions then subtract from a detached counter). */
    void removeWorker(String url) {
        pending.remove(url);
    }

    void clear() {
        pending.clear();
        for (int i = 0; i < WINDOW; i++) {
            recent.set(i, 0);
        }
    }
}
