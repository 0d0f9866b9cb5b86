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
 * unknown parent, 0 under a root). Primitive open addressing (linear probing, backward-shift deletion); an entry
 * lives while its key is held or has held children. Not thread-safe: the rank's {@link RankIndex} calls it under the
 * worker's lock.
 */
final class RankLineage {

    static final byte PARENT_UNKNOWN = 0;
    static final byte PARENT_ROOT = 1;
    static final byte PARENT_KEY = 2;
    private static final int INITIAL_CAPACITY = 64;

    private long[] keys = new long[INITIAL_CAPACITY];
    private long[] parents = new long[INITIAL_CAPACITY];
    /** Bits 0-2: tiers held (by {@link KvTier} ordinal); bits 3-4: parent kind; bit 7: slot used. */
    private byte[] info = new byte[INITIAL_CAPACITY];
    /** Held children with level ≥ 1, ≥ 2, ≥ 3. */
    private int[] ge1 = new int[INITIAL_CAPACITY];
    private int[] ge2 = new int[INITIAL_CAPACITY];
    private int[] ge3 = new int[INITIAL_CAPACITY];
    private int size;
    private long defects;

    private static final int USED = 0x80;
    private static final int TIERS = 0x07;

    long defects() {
        return defects;
    }

    int size() {
        return size;
    }

    void clear() {
        keys = new long[INITIAL_CAPACITY];
        parents = new long[INITIAL_CAPACITY];
        info = new byte[INITIAL_CAPACITY];
        ge1 = new int[INITIAL_CAPACITY];
        ge2 = new int[INITIAL_CAPACITY];
        ge3 = new int[INITIAL_CAPACITY];
        size = 0;
        defects = 0;
    }

    /**
     * Records the parent of {@code key} ({@code kind} {@link #PARENT_ROOT}, {@link #PARENT_KEY} with {@code parent},
     * or {@link #PARENT_UNKNOWN}) before it becomes held. A known parent is kept; an unknown one is replaced. Call
     * {@link #settle} once the key's tiers are set.
     */
    void link(long key, byte kind, long parent) {
        int i = findOrInsert(key);
        if (kind(i) != PARENT_UNKNOWN || kind == PARENT_UNKNOWN || (kind == PARENT_KEY && parent == key)) {
            return;
        }
        int level = level(info[i]);
        defects -= level; // the unknown parent's term
        parents[i] = parent;
        info[i] = (byte) ((info[i] & ~0x18) | (kind << 3));
        own(kind, parent, 0, level);
    }

    /** Forgets {@code key} if it is neither held nor a parent of held keys. */
    void settle(long key) {
        int i = find(key);
        if (i >= 0) {
            dropIfIdle(i);
        }
    }

    /** The rank's holder bit of {@code key} on {@code tier} is now {@code held}. */
    void tier(long key, int tier, boolean held) {
        int i = held ? findOrInsert(key) : find(key);
        if (i < 0) {
            return;
        }
        int before = level(info[i]);
        info[i] = (byte) (held ? info[i] | (1 << tier) : info[i] & ~(1 << tier));
        int after = level(info[i]);
        if (before == after) {
            return;
        }
        // children: one at level x is a defect iff this key's level is below x
        defects += (long) ge1[i] * (flag(after < 1) - flag(before < 1))
                + (long) ge2[i] * (flag(after < 2) - flag(before < 2))
                + (long) ge3[i] * (flag(after < 3) - flag(before < 3));
        own(kind(i), parents[i], before, after);
        if (after == 0) {
            settle(key);
        }
    }

    /** Moves a key's own term (its level against its parent's) from level {@code before} to {@code after}. */
    private void own(byte kind, long parent, int before, int after) {
        if (kind == PARENT_UNKNOWN) {
            defects += after - before;
        } else if (kind == PARENT_KEY) {
            int p = findOrInsert(parent);
            int pl = level(info[p]);
            defects += Math.max(0, after - pl) - Math.max(0, before - pl);
            if (before > 0) {
                count(p, before, -1);
            }
            if (after > 0) {
                count(p, after, 1);
            }
            dropIfIdle(p);
        }
    }

    private void count(int p, int level, int delta) {
        ge1[p] += delta;
        if (level >= 2) {
            ge2[p] += delta;
        }
        if (level >= 3) {
            ge3[p] += delta;
        }
    }

    private void dropIfIdle(int i) {
        if (level(info[i]) == 0 && ge1[i] == 0) {
            delete(i);
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

    private byte kind(int i) {
        return (byte) ((info[i] >> 3) & 0x03);
    }

    private static int home(long key, int mask) {
        long z = key * 0x9E3779B97F4A7C15L;
        return (int) (z ^ (z >>> 32)) & mask;
    }

    private int find(long key) {
        int mask = keys.length - 1;
        for (int i = home(key, mask); (info[i] & USED) != 0; i = (i + 1) & mask) {
            if (keys[i] == key) {
                return i;
            }
        }
        return -1;
    }

    private int findOrInsert(long key) {
        int i = find(key);
        if (i >= 0) {
            return i;
        }
        if ((size + 1) * 4 > keys.length * 3) {
            resize(keys.length * 2);
        }
        int mask = keys.length - 1;
        i = home(key, mask);
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

    private void delete(int i) {
        int mask = keys.length - 1;
        info[i] = 0;
        size--;
        int j = i;
        while (true) {
            j = (j + 1) & mask;
            if ((info[j] & USED) == 0) {
                break;
            }
            int h = home(keys[j], mask);
            boolean movable = j > i ? (h <= i || h > j) : (h <= i && h > j);
            if (movable) {
                move(j, i);
                i = j;
            }
        }
        if (keys.length > INITIAL_CAPACITY && size * 8 < keys.length) {
            resize(keys.length / 2);
        }
    }

    private void move(int from, int to) {
        keys[to] = keys[from];
        parents[to] = parents[from];
        info[to] = info[from];
        ge1[to] = ge1[from];
        ge2[to] = ge2[from];
        ge3[to] = ge3[from];
        info[from] = 0;
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
                int i = home(ok[j], mask);
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
