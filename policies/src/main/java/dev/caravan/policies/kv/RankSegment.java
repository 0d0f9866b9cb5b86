package dev.caravan.policies.kv;

/**
 * One segment of a {@link RankBlocks}: engine id → (key, mask, storage sequence) in primitive open addressing (linear
 * probing, backward-shift deletion, parallel arrays, about 28 bytes per slot), with its own storage-order queue.
 * Segments keep every array small: a few large power-of-two arrays would be G1 humongous objects, each wasting up to
 * a region. Not thread-safe.
 */
final class RankSegment {

    private static final int INITIAL_CAPACITY = 16;

    private long[] engine = new long[INITIAL_CAPACITY];
    private long[] key = new long[INITIAL_CAPACITY];
    private long[] mask = new long[INITIAL_CAPACITY];
    private int[] seq = new int[INITIAL_CAPACITY];
    private int size;

    /** Storage order: engine id and the seq it was stored with (stale when the entry went or was re-stored). */
    private long[] fifoEngine = new long[INITIAL_CAPACITY];
    private int[] fifoSeq = new int[INITIAL_CAPACITY];
    private int fifoHead;
    private int fifoCount;

    int size() {
        return size;
    }

    private static long mix(long h) {
        long z = h * 0xBF58476D1CE4E5B9L;
        return z ^ (z >>> 31);
    }

    /** The slot of engine id {@code h}, or -1. */
    int find(long h) {
        int m = engine.length - 1;
        for (int i = (int) mix(h) & m; mask[i] != 0; i = (i + 1) & m) {
            if (engine[i] == h) {
                return i;
            }
        }
        return -1;
    }

    long keyAt(int slot) {
        return key[slot];
    }

    long maskAt(int slot) {
        return mask[slot];
    }

    /** Adds engine id {@code h} (absent) with its key, first holding bit and storage sequence; returns its slot. */
    int insert(long h, long k, long bits, int sequence) {
        if ((size + 1) * 4 > engine.length * 3) {
            rehash(engine.length * 2);
        }
        int m = engine.length - 1;
        int i = (int) mix(h) & m;
        while (mask[i] != 0) {
            i = (i + 1) & m;
        }
        engine[i] = h;
        key[i] = k;
        mask[i] = bits;
        seq[i] = sequence;
        size++;
        enqueue(h, sequence);
        return i;
    }

    void setMask(int slot, long bits) {
        mask[slot] = bits;
    }

    /** Removes the entry at {@code slot}. */
    void delete(int slot) {
        int m = engine.length - 1;
        int i = slot;
        mask[i] = 0;
        size--;
        int j = i;
        while (true) {
            j = (j + 1) & m;
            if (mask[j] == 0) {
                break;
            }
            int home = (int) mix(engine[j]) & m;
            boolean movable = j > i ? (home <= i || home > j) : (home <= i && home > j);
            if (movable) {
                engine[i] = engine[j];
                key[i] = key[j];
                mask[i] = mask[j];
                seq[i] = seq[j];
                mask[j] = 0;
                i = j;
            }
        }
        if (fifoCount > 2 * size + INITIAL_CAPACITY) {
            compactFifo();
        }
    }

    /** The storage sequence of {@link #oldest()}'s entry; only valid when it is not -1. */
    int seqAt(int slot) {
        return seq[slot];
    }

    /** The slot of the oldest stored entry still present, or -1 when empty. */
    int oldest() {
        while (fifoCount > 0) {
            long h = fifoEngine[fifoHead];
            int s = fifoSeq[fifoHead];
            int slot = find(h);
            if (slot >= 0 && seq[slot] == s) {
                return slot;
            }
            fifoHead = (fifoHead + 1) % fifoEngine.length;
            fifoCount--;
        }
        return -1;
    }

    /** Visits every entry (slot order). */
    void forEach(EntryVisitor visitor) {
        for (int i = 0; i < engine.length; i++) {
            if (mask[i] != 0) {
                visitor.visit(engine[i], key[i], mask[i]);
            }
        }
    }

    @FunctionalInterface
    interface EntryVisitor {
        void visit(long engineId, long key, long mask);
    }

    /** Bytes held by the arrays (for the memory measurement). */
    long arrayBytes() {
        return (long) engine.length * (8 + 8 + 8 + 4) + (long) fifoEngine.length * 12;
    }

    private void enqueue(long h, int s) {
        if (fifoCount == fifoEngine.length) {
            growFifo(fifoEngine.length * 2);
        }
        int tail = (fifoHead + fifoCount) % fifoEngine.length;
        fifoEngine[tail] = h;
        fifoSeq[tail] = s;
        fifoCount++;
    }

    private void growFifo(int capacity) {
        long[] e = new long[capacity];
        int[] s = new int[capacity];
        for (int i = 0; i < fifoCount; i++) {
            int from = (fifoHead + i) % fifoEngine.length;
            e[i] = fifoEngine[from];
            s[i] = fifoSeq[from];
        }
        fifoEngine = e;
        fifoSeq = s;
        fifoHead = 0;
    }

    /**
     * Drops queue entries whose block went (or was stored again later). In place while the ring is at most twice the
     * capacity needed (more than the compaction threshold, so a steady store/remove stream neither grows nor
     * reallocates the ring); into fresh arrays when the segment shrank.
     */
    private void compactFifo() {
        int capacity = Math.max(INITIAL_CAPACITY, Integer.highestOneBit(2 * size + INITIAL_CAPACITY) << 1);
        int length = fifoEngine.length;
        boolean inPlace = length <= 2 * capacity;
        long[] e = inPlace ? fifoEngine : new long[capacity];
        int[] s = inPlace ? fifoSeq : new int[capacity];
        int kept = 0;
        for (int i = 0; i < fifoCount; i++) {
            int from = (fifoHead + i) % length;
            int slot = find(fifoEngine[from]);
            if (slot >= 0 && seq[slot] == fifoSeq[from]) {
                int to = inPlace ? (fifoHead + kept) % length : kept;
                e[to] = fifoEngine[from];
                s[to] = fifoSeq[from];
                kept++;
            }
        }
        if (!inPlace) {
            fifoEngine = e;
            fifoSeq = s;
            fifoHead = 0;
        }
        fifoCount = kept;
    }

    private void rehash(int capacity) {
        long[] oe = engine;
        long[] ok = key;
        long[] om = mask;
        int[] os = seq;
        engine = new long[capacity];
        key = new long[capacity];
        mask = new long[capacity];
        seq = new int[capacity];
        int m = capacity - 1;
        for (int i = 0; i < oe.length; i++) {
            if (om[i] != 0) {
                int j = (int) mix(oe[i]) & m;
                while (mask[j] != 0) {
                    j = (j + 1) & m;
                }
                engine[j] = oe[i];
                key[j] = ok[i];
                mask[j] = om[i];
                seq[j] = os[i];
            }
        }
    }

    /** Forgets everything. */
    void clear() {
        engine = new long[INITIAL_CAPACITY];
        key = new long[INITIAL_CAPACITY];
        mask = new long[INITIAL_CAPACITY];
        seq = new int[INITIAL_CAPACITY];
        size = 0;
        fifoEngine = new long[INITIAL_CAPACITY];
        fifoSeq = new int[INITIAL_CAPACITY];
        fifoHead = 0;
        fifoCount = 0;
    }
}
