package dev.caravan.policies.kv;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The precise policy's self-check, on token content: do the block keys the router predicted a request would make its
 * engine store equal the keys recomputed from the {@code token_ids} of that engine's {@code BlockStored} events? Both
 * are {@link BlockKeys} of token ids, so engine hash algorithms and seeds play no part; what makes them differ is a
 * different tokenizer, chat template, special tokens or LoRA/salt scope — and then precise routing silently degrades
 * to load balancing. This tracker turns that silence into a number.
 *
 * <p>Per worker it keeps the set of expected keys ({@link #expect}, called at selection with the keys past the chosen
 * rank's GPU-resident prefix), each with a deadline {@code now + expiry} from the injected clock. A stored key
 * ({@link #observe}, fed by the index's resolution of each {@code BlockStored}) resolves an expected one as a
 * <em>match</em>; an expected key whose deadline passes resolves as a <em>miss</em>. Stored keys nobody predicted
 * (decode blocks, other routers' traffic) are ignored, and predicting a key again only extends its deadline (set
 * semantics: concurrent requests with one prefix expect one store).
 * Agreement = matches ÷ resolved, over all time and over the last {@code window} resolutions.
 *
 * <p>Thread-safe: {@link #expect} runs on request threads, {@link #observe} on event threads; each worker's set is
 * guarded by its own lock, the recent window by another.
 */
public final class ParityTracker implements KvEventSink {

    private static final Logger LOG = LoggerFactory.getLogger(ParityTracker.class);

    private final ParityConfig config;
    private final LongSupplier nanoClock;
    private final ConcurrentHashMap<String, LinkedHashMap<Long, Long>> pending = new ConcurrentHashMap<>();
    private final AtomicLong matched = new AtomicLong();
    private final AtomicLong missed = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();
    private final boolean[] ring;
    private int ringNext;
    private int ringSize;
    private int ringMatches;
    /** Written under the ring's lock; volatile so {@link #degraded()} reads it without one. */
    private volatile boolean degraded;

    /**
     * A snapshot of the self-check.
     *
     * @param matched         predictions confirmed by a {@code BlockStored}, all time
     * @param missed          predictions that expired unconfirmed, all time
     * @param pending         predictions still waiting
     * @param recentAgreement matches ÷ resolved over the last {@code window} resolutions; NaN before the first
     * @param recentSamples   resolutions in that window
     * @param degraded        recent agreement is below {@code warnBelow} with at least {@code minSamples} samples
     */
    public record Snapshot(long matched, long missed, long pending, double recentAgreement, int recentSamples,
                           boolean degraded) {
        /** All-time agreement, NaN before the first resolution. */
        public double agreement() {
            long resolved = matched + missed;
            return resolved == 0 ? Double.NaN : (double) matched / resolved;
        }
    }

    public ParityTracker(ParityConfig config, LongSupplier nanoClock) {
        this.config = config;
        this.nanoClock = nanoClock;
        this.ring = new boolean[config.window()];
    }

    /** Expects {@code workerId}'s engine to report these blocks stored within the expiry. */
    public void expect(String workerId, long[] hashes) {
        if (hashes.length == 0) {
            return;
        }
        long now = nanoClock.getAsLong();
        long deadline = now + config.expiry().toNanos();
        LinkedHashMap<Long, Long> set = pending.computeIfAbsent(workerId, w -> new LinkedHashMap<>());
        synchronized (set) {
            expireLocked(set, now);
            for (long h : hashes) {
                set.remove(h); // re-insert at the tail so the map stays in deadline order
                set.put(h, deadline);
            }
            while (set.size() > config.maxPendingPerWorker()) {
                Iterator<Long> it = set.keySet().iterator();
                it.next();
                it.remove();
                dropped.incrementAndGet();
            }
        }
    }

    /** The worker's engine reported these blocks stored. */
    public void observe(String workerId, long[] storedHashes) {
        LinkedHashMap<Long, Long> set = pending.get(workerId);
        if (set == null) {
            return;
        }
        int hits = 0;
        synchronized (set) {
            expireLocked(set, nanoClock.getAsLong());
            for (long h : storedHashes) {
                if (set.remove(h) != null) {
                    hits++;
                }
            }
        }
        if (hits > 0) {
            matched.addAndGet(hits);
            record(true, hits);
        }
    }

    /** Forgets a worker's pending predictions (it left the pool); they count neither way. */
    public void removeWorker(String workerId) {
        pending.remove(workerId);
    }

    /** Expires what is due on every worker, then reports. */
    public Snapshot snapshot() {
        long now = nanoClock.getAsLong();
        long waiting = 0;
        for (LinkedHashMap<Long, Long> set : pending.values()) {
            synchronized (set) {
                expireLocked(set, now);
                waiting += set.size();
            }
        }
        synchronized (ring) {
            double recent = ringSize == 0 ? Double.NaN : (double) ringMatches / ringSize;
            return new Snapshot(matched.get(), missed.get(), waiting, recent, ringSize, degraded);
        }
    }

    /**
     * Whether recent agreement is below {@code warnBelow} with at least {@code minSamples} resolutions, as of the last
     * resolution: one volatile read, for the request path (unlike {@link #snapshot}, it expires nothing).
     */
    public boolean degraded() {
        return degraded;
    }

    /** Predictions dropped because a worker had more than {@code maxPendingPerWorker} pending. */
    public long droppedPredictions() {
        return dropped.get();
    }

    private void expireLocked(LinkedHashMap<Long, Long> set, long now) {
        int expired = 0;
        Iterator<Map.Entry<Long, Long>> it = set.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<Long, Long> e = it.next();
            if (e.getValue() - now > 0) {
                break; // deadline order: the rest are later
            }
            it.remove();
            expired++;
        }
        if (expired > 0) {
            missed.addAndGet(expired);
            record(false, expired);
        }
    }

    private void record(boolean match, int count) {
        boolean changed;
        boolean nowDegraded;
        double recent;
        synchronized (ring) {
            for (int i = 0; i < count; i++) {
                if (ringSize == ring.length) {
                    if (ring[ringNext]) {
                        ringMatches--;
                    }
                } else {
                    ringSize++;
                }
                ring[ringNext] = match;
                if (match) {
                    ringMatches++;
                }
                ringNext = (ringNext + 1) % ring.length;
            }
            recent = (double) ringMatches / ringSize;
            nowDegraded = ringSize >= config.minSamples() && recent < config.warnBelow();
            changed = nowDegraded != degraded;
            degraded = nowDegraded;
        }
        if (changed && nowDegraded) {
            LOG.warn("KV parity degraded: only {}% of predicted blocks were reported stored by engines (last {}"
                    + " predictions). Check that the gateway tokenizes as the engines do: tokenizer, chat template,"
                    + " special tokens.", Math.round(recent * 100), config.window());
        } else if (changed) {
            LOG.info("KV parity recovered: {}% of predicted blocks confirmed", Math.round(recent * 100));
        }
    }

    @Override
    public void blocksStored(String workerId, String model, long[] hashes) {
        observe(workerId, hashes);
    }

    @Override
    public void blocksRemoved(String workerId, String model, long[] hashes) {
        // Evictions say nothing about whether predictions were right.
    }

    @Override
    public void rankCleared(String workerId, int rank) {
        // Pending predictions stay: the engine will store the blocks again when the requests run.
    }
}
