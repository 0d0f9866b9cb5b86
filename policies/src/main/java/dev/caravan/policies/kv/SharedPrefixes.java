package dev.caravan.policies.kv;

/**
 * How many routed requests passed through each block key of their chain, and whether requests go on from a key in
 * more than one way: what {@code kv_aware}'s {@code --kv-discount-shared-prefix} needs to find a request's <em>shared
 * branch point</em> without a tree (docs/kv-events.md, "A hot or shared prefix").
 *
 * <p>Per key: its pass count, the first next key seen after it, and whether a different next key was seen since
 * (two continuations). A chain is a path, so a key's count is at least its successors' and a walk can stop at the first
 * unknown key. {@link #sharedBlocks} is the deepest chain position that at least 1/N of all routed requests passed
 * through and from which at least two continuations leave (the keys seen after it, plus the request's own next key);
 * a conversation that only grows never branches, so its own history is never shared.
 *
 * <p>Bounded: the first {@link #MAX_DEPTH} keys of a request are counted, and at most {@link #MAX_ENTRIES} keys are
 * held (primitive arrays, 21 bytes a slot at most twice as many slots: ≤ 2.8 MB). When a new key would exceed that,
 * every count and the request total are halved and the keys left at 0 dropped (repeatedly if needed, down to half the
 * bound): counts describe the recent few hundred to thousands of requests, and their ratios survive. Thread-safe
 * (one lock; a request walks its chain once to read and once to record).
 */
final class SharedPrefixes {

    /** Keys held at most. */
    static final int MAX_ENTRIES = 1 << 16;
    /** Leading keys of a request counted: 32,768 tokens at 16-token blocks. */
    static final int MAX_DEPTH = 2048;
    private static final int INITIAL_SLOTS = 1 << 10;

    private final int maxEntries;
    private long[] keys = new long[INITIAL_SLOTS];
    /** Next key first seen after the key; 0 = none yet (a key equal to 0 is as unlikely as any other). */
    private long[] next = new long[INITIAL_SLOTS];
    /** Passes; 0 = empty slot. */
    private int[] passes = new int[INITIAL_SLOTS];
    private boolean[] branched = new boolean[INITIAL_SLOTS];
    private int size;
    private long total;

    SharedPrefixes() {
        this(MAX_ENTRIES);
    }

    /** @param maxEntries the bound on held keys (tests use small ones); &gt;= 1 */
    SharedPrefixes(int maxEntries) {
        if (maxEntries < 1) {
            throw new IllegalArgumentException("maxEntries must be >= 1, was " + maxEntries);
        }
        this.maxEntries = maxEntries;
    }

    /**
     * Leading blocks of {@code chain} up to its shared branch point, 0 when there is none.
     *
     * @param parts the share's denominator (the candidate engine ranks); &gt;= 1
     */
    synchronized int sharedBlocks(long[] chain, int parts) {
        if (parts < 1) {
            throw new IllegalArgumentException("parts must be >= 1, was " + parts);
        }
        int shared = 0;
        int depth = Math.min(chain.length, MAX_DEPTH);
        for (int i = 0; i < depth; i++) {
            int slot = find(chain[i]);
            if (slot < 0) {
                break;
            }
            boolean twoWays = branched[slot]
                    || (next[slot] != 0 && i + 1 < chain.length && chain[i + 1] != next[slot]);
            if (twoWays && (long) passes[slot] * parts >= total) {
                shared = i + 1;
            }
        }
        return shared;
    }

    /** Counts one routed request through the leading keys of its chain (an empty chain counts in the total only). */
    synchronized void record(long[] chain) {
        int depth = Math.min(chain.length, MAX_DEPTH);
        for (int i = 0; i < depth; i++) {
            int slot = find(chain[i]);
            if (slot < 0) {
                if (size + 1 > maxEntries) {
                    halveUntil(maxEntries / 2);
                }
                slot = insert(chain[i]);
            }
            passes[slot]++;
            if (i + 1 < chain.length) {
                if (next[slot] == 0) {
                    next[slot] = chain[i + 1];
                } else if (next[slot] != chain[i + 1]) {
                    branched[slot] = true;
                }
            }
        }
        if (++total >= Integer.MAX_VALUE) {
            halveUntil(size);
        }
    }

    /** Requests counted (after halvings). */
    synchronized long total() {
        return total;
    }

    /** Keys held. */
    synchronized int size() {
        return size;
    }

    /** Passes counted through {@code key}, 0 when it is not held. */
    synchronized int passes(long key) {
        int slot = find(key);
        return slot < 0 ? 0 : passes[slot];
    }

    private static int home(long key, int mask) {
        long z = key * 0x9E3779B97F4A7C15L;
        return (int) (z ^ (z >>> 32)) & mask;
    }

    private int find(long key) {
        int mask = keys.length - 1;
        for (int i = home(key, mask); passes[i] != 0; i = (i + 1) & mask) {
            if (keys[i] == key) {
                return i;
            }
        }
        return -1;
    }

    /** A new slot for {@code key} with no passes yet (the caller adds the first); grows the table first if needed. */
    private int insert(long key) {
        if ((size + 1) * 4 > keys.length * 3) {
            rehash(keys.length * 2);
        }
        int mask = keys.length - 1;
        int i = home(key, mask);
        while (passes[i] != 0) {
            i = (i + 1) & mask;
        }
        keys[i] = key;
        next[i] = 0;
        branched[i] = false;
        size++;
        return i;
    }

    /** Halves every count and the total, dropping keys left at 0, until at most {@code target} keys are held. */
    private void halveUntil(int target) {
        do {
            total >>= 1;
            for (int i = 0; i < passes.length; i++) {
                passes[i] >>= 1;
            }
            rehash(keys.length);
        } while (size > target);
    }

    /** Re-inserts the held keys (count &gt; 0) into {@code slots} slots. */
    private void rehash(int slots) {
        long[] oldKeys = keys;
        long[] oldNext = next;
        int[] oldPasses = passes;
        boolean[] oldBranched = branched;
        keys = new long[slots];
        next = new long[slots];
        passes = new int[slots];
        branched = new boolean[slots];
        size = 0;
        int mask = slots - 1;
        for (int j = 0; j < oldKeys.length; j++) {
            if (oldPasses[j] != 0) {
                int i = home(oldKeys[j], mask);
                while (passes[i] != 0) {
                    i = (i + 1) & mask;
                }
                keys[i] = oldKeys[j];
                next[i] = oldNext[j];
                passes[i] = oldPasses[j];
                branched[i] = oldBranched[j];
                size++;
            }
        }
    }
}
