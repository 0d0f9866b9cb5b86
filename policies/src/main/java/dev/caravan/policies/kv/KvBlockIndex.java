package dev.caravan.policies.kv;

import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which workers hold which KV-cache blocks, per model, as their engines reported through KV events: the ground truth
 * the precise {@code kv_aware} policy scores against.
 *
 * <p>Layout: per model, a map from block hash to a bit set of worker slots (a small integer per worker); per worker
 * and model, an insertion-ordered set of its resident hashes. Storing a hash a worker already holds changes nothing but
 * its age (set semantics: engines may report the same content twice).
 *
 * <p>Memory bound: at most {@link #maxBlocksPerWorker()} hashes per (worker, model). Storing beyond it drops that
 * worker's <em>oldest-stored</em> hashes first (counted in {@link #droppedBlocks()}). Engines themselves evict LRU,
 * and a full engine reports a {@code BlockRemoved} for every eviction, so the bound only bites when events were lost or
 * the bound is below the engine's real capacity; set it above the largest engine's block count (KV pool tokens ÷ block
 * size). Memory is about 90–150 bytes per (worker, block) entry (measured, docs/kv-events.md), so the default bound
 * costs at most ~19 MB per worker.
 *
 * <p>Thread-safety: lookups are lock-free (they read concurrent maps and immutable bit sets) and may run on any number
 * of request threads. Mutations of one worker are serialised by that worker's lock (its event pipeline is the single
 * writer; {@link #clearWorker}/{@link #removeWorker} from other threads take the same lock); the per-hash bit set is
 * replaced atomically, so different workers' writers never lose each other's bits. A lookup concurrent with a write
 * sees each hash either before or after it.
 */
public final class KvBlockIndex implements KvEventSink {

    /** Default bound per worker and model: 131,072 blocks = 2M tokens at block size 16, above one 8-GPU engine's pool. */
    public static final int DEFAULT_MAX_BLOCKS_PER_WORKER = 1 << 17;

    private static final Logger LOG = LoggerFactory.getLogger(KvBlockIndex.class);

    private final int maxBlocksPerWorker;
    private final ConcurrentHashMap<String, ConcurrentHashMap<Long, long[]>> models = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, WorkerBlocks> workers = new ConcurrentHashMap<>();
    private final BitSet usedSlots = new BitSet();
    /** slot → worker id; replaced on every change so lookups read a consistent snapshot without locking. */
    private volatile String[] slotOwners = new String[0];
    private final LongAdder dropped = new LongAdder();

    /** One worker's resident hashes per model, guarded by the instance's monitor. */
    private static final class WorkerBlocks {
        final String workerId;
        final int slot;
        final Map<String, LinkedHashSet<Long>> byModel = new HashMap<>();
        volatile int resident;
        boolean removed;

        WorkerBlocks(String workerId, int slot) {
            this.workerId = workerId;
            this.slot = slot;
        }
    }

    public KvBlockIndex() {
        this(DEFAULT_MAX_BLOCKS_PER_WORKER);
    }

    public KvBlockIndex(int maxBlocksPerWorker) {
        if (maxBlocksPerWorker < 1) {
            throw new IllegalArgumentException("maxBlocksPerWorker must be >= 1, was " + maxBlocksPerWorker);
        }
        this.maxBlocksPerWorker = maxBlocksPerWorker;
    }

    public int maxBlocksPerWorker() {
        return maxBlocksPerWorker;
    }

    /**
     * Records that {@code workerId} holds these blocks of {@code model}.
     *
     * @return how many were new for the worker
     */
    public int store(String model, String workerId, long[] hashes) {
        ConcurrentHashMap<Long, long[]> masks = models.computeIfAbsent(model, m -> new ConcurrentHashMap<>());
        while (true) {
            WorkerBlocks w = workers.computeIfAbsent(workerId, this::newWorker);
            synchronized (w) {
                if (w.removed) {
                    continue; // lost a race with removeWorker: start over with a fresh state
                }
                LinkedHashSet<Long> set = w.byModel.computeIfAbsent(model, m -> new LinkedHashSet<>());
                int added = 0;
                int evicted = 0;
                for (long h : hashes) {
                    Long key = h;
                    if (set.remove(key)) {
                        set.add(key); // refresh its age only
                        continue;
                    }
                    set.add(key);
                    masks.compute(key, (k, bits) -> withBit(bits, w.slot));
                    added++;
                    if (set.size() > maxBlocksPerWorker) {
                        Iterator<Long> oldest = set.iterator();
                        Long victim = oldest.next();
                        oldest.remove();
                        masks.computeIfPresent(victim, (k, bits) -> withoutBit(bits, w.slot));
                        evicted++;
                        dropped.increment();
                    }
                }
                w.resident += added - evicted;
                return added;
            }
        }
    }

    /**
     * Records that {@code workerId} evicted these blocks of {@code model}; unknown hashes are ignored.
     *
     * @return how many were resident
     */
    public int remove(String model, String workerId, long[] hashes) {
        WorkerBlocks w = workers.get(workerId);
        ConcurrentHashMap<Long, long[]> masks = models.get(model);
        if (w == null || masks == null) {
            return 0;
        }
        synchronized (w) {
            LinkedHashSet<Long> set = w.byModel.get(model);
            if (w.removed || set == null) {
                return 0;
            }
            int removed = 0;
            for (long h : hashes) {
                Long key = h;
                if (set.remove(key)) {
                    masks.computeIfPresent(key, (k, bits) -> withoutBit(bits, w.slot));
                    removed++;
                }
            }
            w.resident -= removed;
            return removed;
        }
    }

    /**
     * Forgets every block of the worker (its engine cleared its cache or restarted) but keeps its slot.
     *
     * @return how many blocks were dropped
     */
    public int clearWorker(String workerId) {
        WorkerBlocks w = workers.get(workerId);
        if (w == null) {
            return 0;
        }
        synchronized (w) {
            return clearLocked(w);
        }
    }

    /**
     * Forgets the worker entirely (it left the pool). Remove its event route first: an event applied afterwards would
     * register it again.
     */
    public void removeWorker(String workerId) {
        WorkerBlocks w = workers.remove(workerId);
        if (w == null) {
            return;
        }
        int cleared;
        synchronized (w) {
            cleared = clearLocked(w);
            w.removed = true;
        }
        synchronized (usedSlots) {
            usedSlots.clear(w.slot);
            String[] owners = slotOwners.clone();
            owners[w.slot] = null;
            slotOwners = owners;
        }
        LOG.info("KV index: removed worker {} ({} blocks dropped)", workerId, cleared);
    }

    private int clearLocked(WorkerBlocks w) {
        int cleared = 0;
        for (Map.Entry<String, LinkedHashSet<Long>> e : w.byModel.entrySet()) {
            ConcurrentHashMap<Long, long[]> masks = models.get(e.getKey());
            for (Long h : e.getValue()) {
                masks.computeIfPresent(h, (k, bits) -> withoutBit(bits, w.slot));
                cleared++;
            }
        }
        w.byModel.clear();
        w.resident = 0;
        return cleared;
    }

    private WorkerBlocks newWorker(String workerId) {
        synchronized (usedSlots) {
            int slot = usedSlots.nextClearBit(0);
            usedSlots.set(slot);
            String[] owners = slotOwners;
            if (slot >= owners.length) {
                owners = Arrays.copyOf(owners, Math.max(8, slot * 2));
            } else {
                owners = owners.clone();
            }
            owners[slot] = workerId;
            slotOwners = owners;
            return new WorkerBlocks(workerId, slot);
        }
    }

    /**
     * For each worker, how many of {@code hashes} (a request's block hashes, in order) it holds consecutively from the
     * first: the walk narrows the set of workers block by block and stops when none is left (llm-d's LongestPrefix).
     */
    public PrefixMatches longestPrefixes(String model, long[] hashes) {
        ConcurrentHashMap<Long, long[]> masks = models.get(model);
        if (masks == null || hashes.length == 0) {
            return PrefixMatches.none(hashes.length);
        }
        long[] first = masks.get(hashes[0]);
        if (first == null) {
            return PrefixMatches.none(hashes.length);
        }
        String[] owners = slotOwners;
        Map<String, Integer> matched = new HashMap<>();
        long[] alive = first.clone();
        int depth = 1;
        for (; depth < hashes.length && anySet(alive); depth++) {
            long[] next = masks.get(hashes[depth]);
            for (int w = 0; w < alive.length; w++) {
                long keep = next != null && w < next.length ? next[w] : 0;
                long dropping = alive[w] & ~keep;
                record(dropping, w, depth, owners, matched);
                alive[w] &= keep;
            }
        }
        for (int w = 0; w < alive.length; w++) {
            record(alive[w], w, depth, owners, matched);
        }
        return new PrefixMatches(hashes.length, matched);
    }

    private static void record(long bits, int word, int depth, String[] owners, Map<String, Integer> out) {
        while (bits != 0) {
            int slot = word * 64 + Long.numberOfTrailingZeros(bits);
            bits &= bits - 1;
            String owner = slot < owners.length ? owners[slot] : null;
            if (owner != null) {
                out.put(owner, depth);
            }
        }
    }

    private static boolean anySet(long[] bits) {
        for (long b : bits) {
            if (b != 0) {
                return true;
            }
        }
        return false;
    }

    /** True when the worker currently holds the block. */
    public boolean contains(String model, String workerId, long hash) {
        ConcurrentHashMap<Long, long[]> masks = models.get(model);
        WorkerBlocks w = workers.get(workerId);
        if (masks == null || w == null) {
            return false;
        }
        long[] bits = masks.get(hash);
        int word = w.slot >>> 6;
        return bits != null && word < bits.length && (bits[word] & (1L << w.slot)) != 0;
    }

    /** Blocks the worker holds, over all models; 0 for an unknown worker. */
    public int residentBlocks(String workerId) {
        WorkerBlocks w = workers.get(workerId);
        return w == null ? 0 : w.resident;
    }

    /** Resident block count of every known worker (a snapshot). */
    public Map<String, Integer> residentBlockCounts() {
        Map<String, Integer> out = new HashMap<>();
        workers.forEach((id, w) -> out.put(id, w.resident));
        return out;
    }

    /** Distinct block hashes indexed for the model (all workers). */
    public int distinctBlocks(String model) {
        ConcurrentHashMap<Long, long[]> masks = models.get(model);
        return masks == null ? 0 : masks.size();
    }

    /** Blocks dropped because a worker exceeded {@link #maxBlocksPerWorker()}, since creation. */
    public long droppedBlocks() {
        return dropped.sum();
    }

    @Override
    public void blocksStored(String workerId, String model, long[] hashes) {
        store(model, workerId, hashes);
    }

    @Override
    public void blocksRemoved(String workerId, String model, long[] hashes) {
        remove(model, workerId, hashes);
    }

    @Override
    public void workerCleared(String workerId) {
        int n = clearWorker(workerId);
        LOG.info("KV index: cleared worker {} ({} blocks dropped)", workerId, n);
    }

    /** A copy of {@code bits} with {@code slot} set (bit sets are immutable once published). */
    private static long[] withBit(long[] bits, int slot) {
        int word = slot >>> 6;
        long[] out = bits == null ? new long[word + 1]
                : Arrays.copyOf(bits, Math.max(bits.length, word + 1));
        out[word] |= 1L << slot;
        return out;
    }

    /** A copy without {@code slot}, or null (removing the hash) when no bit is left. */
    private static long[] withoutBit(long[] bits, int slot) {
        int word = slot >>> 6;
        if (word >= bits.length || (bits[word] & (1L << slot)) == 0) {
            return bits;
        }
        long[] out = bits.clone();
        out[word] &= ~(1L << slot);
        return anySet(out) ? out : null;
    }
}
