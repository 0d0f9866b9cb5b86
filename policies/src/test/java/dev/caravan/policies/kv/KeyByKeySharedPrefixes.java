package dev.caravan.policies.kv;

/**
 * {@link SharedPrefixes} as one hash table entry per key (pass count, first next key, branch flag), every key of a
 * request read and counted one by one: the test oracle for the trie of chain segments.
 */
final class KeyByKeySharedPrefixes {

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

    KeyByKeySharedPrefixes() {
        this(MAX_ENTRIES);
    }

    /** @param maxEntries the bound on held keys (tests use small ones); &gt;= 1 */
    KeyByKeySharedPrefixes(int maxEntries) {
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
                if (size + (depth - i) > maxEntries) { // room for the request's new keys at once
                    halveUntil(maxEntries / 2);
                    if (i > 0 && find(chain[i - 1]) < 0) {
                        break; // the halving dropped the path the new keys hang from: they are not recorded
                    }
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
