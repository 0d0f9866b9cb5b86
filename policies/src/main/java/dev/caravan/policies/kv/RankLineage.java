package dev.caravan.policies.kv;

/**
 * Whether one engine rank's holdings are <em>prefix-closed</em>: every block key it holds routably has its parent
 * (the key it chains from) held on the same tier or a better one. Then a held key proves its whole prefix is held,
 * and {@link KvBlockIndex#longestPrefixes} may find the rank's run by probing a few chain positions instead of
 * walking every block. Engines evict leaves first (vLLM frees a request's blocks tail first and a parent is in use
 * whenever a child is; SGLang's radix tree evicts leaves), so a healthy rank stays closed; a hole appears when the
 * index drops a rank's oldest entries at its bound, when an engine evicts out of order, or for entries restored from a
 * peer replica without their parents. {@link #defects()} sums the breaches' level gaps; the lookup walks a rank with
 * any, block by block, as it always did.
 *
 * <p>Per key: its level (3 GPU, 2 host memory, 1 storage, 0 not held: the best tier whose holder bit is set, the same
 * bits the {@link KeyTable} holds for this rank), its parent (a key, the sequence root, or unknown) and how many held
 * child keys have each level. A held key with level L and parent level P adds {@code max(0, L − P)} defects (L for an
 * unknown parent, 0 under a root). An entry lives while its key is held or has held children. Primitive open
 * addressing (linear probing, backward-shift deletion) in {@value #SEGMENTS} segments, so that no array of a full rank
 * is a humongous G1 object (about 29 bytes a slot). Not thread-safe: the rank's {@link RankIndex} calls it under the
 * worker's lock.
 */
final class RankLineage {

    static final byte PARENT_UNKNOWN = 0;
    static final byte PARENT_ROOT = 1;
    static final byte PARENT_KEY = 2;
    static final int SEGMENTS = 16;
    private static final int INITIAL_CAPACITY = 16;
    private static final int USED = 0x80;
    private static final int TIERS = 0x07;

    /** One segment's open-addressing table. */
    private static final class Segment {
        long[] keys = new long[INITIAL_CAPACITY];
        long[] parents = new long[INITIAL_CAPACITY];
        /** Bits 0-2: tiers held (by {@link KvTier} ordinal); bits 3-4: parent kind; bit 7: slot used. */
        byte[] info = new byte[INITIAL_CAPACITY];
        /** Held children with level ≥ 1, ≥ 2, ≥ 3. */
        int[] ge1 = new int[INITIAL_CAPACITY];
        int[] ge2 = new int[INITIAL_CAPACITY];
        int[] ge3 = new int[INITIAL_CAPACITY];
        int size;

        int find(long key, long h) {
            int mask = keys.length - 1;
            for (int i = (int) h & mask; (info[i] & USED) != 0; i = (i + 1) & mask) {
                if (keys[i] == key) {
                    return i;
                }
            }
            return -1;
        }

        int findOrInsert(long key, long h) {
            int i = find(key, h);
            if (i >= 0) {
                return i;
            }
            if ((size + 1) * 4 > keys.length * 3) {
                resize(keys.length * 2);
            }
            int mask = keys.length - 1;
            i = (int) h & mask;
            while ((info[i] & USED) != 0) {
                i = (i + 1) & mask;
            }
            keys[i] = key;
            parents[i] = 0;
            info[i] = (byte) USED;
            ge1[i] = 0;
            ge2[i] = 0;
            ge3[i] = 0;
            size++;
            return i;
        }

        void delete(int i) {
            int mask = keys.length - 1;
            info[i] = 0;
            size--;
            int j = i;
            while (true) {
                j = (j + 1) & mask;
                if ((info[j] & USED) == 0) {
                    break;
                }
                int home = (int) hash(keys[j]) & mask;
                boolean movable = j > i ? (home <= i || home > j) : (home <= i && home > j);
                if (movable) {
                    keys[i] = keys[j];
                    parents[i] = parents[j];
                    info[i] = info[j];
                    ge1[i] = ge1[j];
                    ge2[i] = ge2[j];
                    ge3[i] = ge3[j];
                    info[j] = 0;
                    i = j;
                }
            }
            if (keys.length > INITIAL_CAPACITY && size * 8 < keys.length) {
                resize(keys.length / 2);
            }
        }

        private void resize(int capacity) {
            long[] ok = keys;
            long[] op = parents;
            byte[] oi = info;
            int[] o1 = ge1;
            int[] o2 = ge2;
            int[] o3 = ge3;
            keys = new long[capacity];
            parents = new long[capacity];
            info = new byte[capacity];
            ge1 = new int[capacity];
            ge2 = new int[capacity];
            ge3 = new int[capacity];
            int mask = capacity - 1;
            for (int j = 0; j < ok.length; j++) {
                if ((oi[j] & USED) != 0) {
                    int i = (int) hash(ok[j]) & mask;
                    while ((info[i] & USED) != 0) {
                        i = (i + 1) & mask;
                    }
                    keys[i] = ok[j];
                    parents[i] = op[j];
                    info[i] = oi[j];
                    ge1[i] = o1[j];
                    ge2[i] = o2[j];
                    ge3[i] = o3[j];
                }
            }
        }
    }

    private final Segment[] segments = new Segment[SEGMENTS];
    private long defects;

    RankLineage() {
        clear();
    }

    long defects() {
        return defects;
    }

    void clear() {
        for (int s = 0; s < SEGMENTS; s++) {
            segments[s] = new Segment();
        }
        defects = 0;
    }

    private static long hash(long key) {
        long z = key * 0x9E3779B97F4A7C15L;
        return z ^ (z >>> 32);
    }

    private Segment segment(long h) {
        return segments[(int) (h >>> 60) & (SEGMENTS - 1)];
    }

    /**
     * Records the parent of {@code key} ({@code kind} {@link #PARENT_ROOT}, {@link #PARENT_KEY} with {@code parent},
     * or {@link #PARENT_UNKNOWN}) before it becomes held. A known parent is kept; an unknown one is replaced. Call
     * {@link #settle} once the key's tiers are set.
     */
    void link(long key, byte kind, long parent) {
        long h = hash(key);
        Segment s = segment(h);
        int i = s.findOrInsert(key, h);
        if (kind(s, i) != PARENT_UNKNOWN || kind == PARENT_UNKNOWN || (kind == PARENT_KEY && parent == key)) {
            return;
        }
        int level = level(s.info[i]);
        defects -= level; // the unknown parent's term
        s.parents[i] = parent;
        s.info[i] = (byte) ((s.info[i] & ~0x18) | (kind << 3));
        own(kind, parent, 0, level);
    }

    /** Forgets {@code key} if it is neither held nor a parent of held keys. */
    void settle(long key) {
        long h = hash(key);
        Segment s = segment(h);
        int i = s.find(key, h);
        if (i >= 0) {
            dropIfIdle(s, i);
        }
    }

    /** The rank's holder bit of {@code key} on {@code tier} is now {@code held}. */
    void tier(long key, int tier, boolean held) {
        long h = hash(key);
        Segment s = segment(h);
        int i = held ? s.findOrInsert(key, h) : s.find(key, h);
        if (i < 0) {
            return;
        }
        int before = level(s.info[i]);
        s.info[i] = (byte) (held ? s.info[i] | (1 << tier) : s.info[i] & ~(1 << tier));
        int after = level(s.info[i]);
        if (before == after) {
            return;
        }
        // children: one at level x is a defect iff this key's level is below x
        defects += (long) s.ge1[i] * (flag(after < 1) - flag(before < 1))
                + (long) s.ge2[i] * (flag(after < 2) - flag(before < 2))
                + (long) s.ge3[i] * (flag(after < 3) - flag(before < 3));
        own(kind(s, i), s.parents[i], before, after);
        if (after == 0) {
            settle(key);
        }
    }

    /** Moves a key's own term (its level against its parent's) from level {@code before} to {@code after}. */
    private void own(byte kind, long parent, int before, int after) {
        if (kind == PARENT_UNKNOWN) {
            defects += after - before;
        } else if (kind == PARENT_KEY) {
            long h = hash(parent);
            Segment s = segment(h);
            int p = s.findOrInsert(parent, h);
            int pl = level(s.info[p]);
            defects += Math.max(0, after - pl) - Math.max(0, before - pl);
            if (before > 0) {
                count(s, p, before, -1);
            }
            if (after > 0) {
                count(s, p, after, 1);
            }
            dropIfIdle(s, p);
        }
    }

    private static void count(Segment s, int p, int level, int delta) {
        s.ge1[p] += delta;
        if (level >= 2) {
            s.ge2[p] += delta;
        }
        if (level >= 3) {
            s.ge3[p] += delta;
        }
    }

    private static void dropIfIdle(Segment s, int i) {
        if (level(s.info[i]) == 0 && s.ge1[i] == 0) {
            s.delete(i);
        }
    }

    private static int flag(boolean b) {
        return b ? 1 : 0;
    }

    /** 3 on the GPU, 2 in host memory, 1 on storage, 0 not held. */
    private static int level(byte info) {
        int tiers = info & TIERS;
        return (tiers & (1 << KvTier.GPU.ordinal())) != 0 ? 3
                : (tiers & (1 << KvTier.CPU.ordinal())) != 0 ? 2
                : (tiers & (1 << KvTier.DISK.ordinal())) != 0 ? 1 : 0;
    }

    private static byte kind(Segment s, int i) {
        return (byte) ((s.info[i] >> 3) & 0x03);
    }
}
