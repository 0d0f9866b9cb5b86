package dev.caravan.policies.kv;

/**
 * A multiset of longs: key → count, primitive open addressing (linear probing, backward-shift deletion), so a
 * routing decision can ask "is this block active?" for thousands of keys without boxing. {@link #size()} is the number
 * of distinct keys. Not thread-safe.
 */
final class LongCounts {

    private static final int INITIAL_CAPACITY = 64;

    private long[] keys = new long[INITIAL_CAPACITY];
    private int[] counts = new int[INITIAL_CAPACITY];
    private int size;

    private static int home(long key, int mask) {
        long z = key * 0x9E3779B97F4A7C15L;
        return (int) (z ^ (z >>> 32)) & mask;
    }

    int size() {
        return size;
    }

    boolean contains(long key) {
        int mask = keys.length - 1;
        for (int i = home(key, mask); counts[i] != 0; i = (i + 1) & mask) {
            if (keys[i] == key) {
                return true;
            }
        }
        return false;
    }

    void add(long key) {
        int mask = keys.length - 1;
        int i = home(key, mask);
        while (counts[i] != 0) {
            if (keys[i] == key) {
                counts[i]++;
                return;
            }
            i = (i + 1) & mask;
        }
        keys[i] = key;
        counts[i] = 1;
        if (++size * 4 > keys.length * 3) {
            resize(keys.length * 2);
        }
    }

    /** Takes one occurrence of {@code key} out; absent keys are ignored. */
    void remove(long key) {
        int mask = keys.length - 1;
        int i = home(key, mask);
        while (counts[i] != 0 && keys[i] != key) {
            i = (i + 1) & mask;
        }
        if (counts[i] == 0) {
            return;
        }
        if (--counts[i] > 0) {
            return;
        }
        size--;
        int j = i;
        while (true) {
            j = (j + 1) & mask;
            if (counts[j] == 0) {
                break;
            }
            int h = home(keys[j], mask);
            boolean movable = j > i ? (h <= i || h > j) : (h <= i && h > j);
            if (movable) {
                keys[i] = keys[j];
                counts[i] = counts[j];
                counts[j] = 0;
                i = j;
            }
        }
        if (keys.length > INITIAL_CAPACITY && size * 8 < keys.length) {
            resize(keys.length / 2);
        }
    }

    private void resize(int capacity) {
        long[] oldKeys = keys;
        int[] oldCounts = counts;
        keys = new long[capacity];
        counts = new int[capacity];
        int mask = capacity - 1;
        for (int i = 0; i < oldKeys.length; i++) {
            if (oldCounts[i] != 0) {
                int j = home(oldKeys[i], mask);
                while (counts[j] != 0) {
                    j = (j + 1) & mask;
                }
                keys[j] = oldKeys[i];
                counts[j] = oldCounts[i];
            }
        }
    }
}
