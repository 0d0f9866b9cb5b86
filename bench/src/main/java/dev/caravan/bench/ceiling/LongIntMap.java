package dev.caravan.bench.ceiling;

/**
 * An open-addressing map from long keys to non-negative ints (linear probing, power-of-two table, at most half full):
 * a trace replay names millions of KV blocks by 64-bit hashes, which as boxed {@code Long}s would cost ~10× the memory.
 * Not thread-safe.
 */
final class LongIntMap {

    private long[] keys = new long[1 << 16];
    private int[] values = new int[1 << 16];
    private int zeroValue = -1;
    private int size;

    /** The value of {@code key}, or -1. */
    int get(long key) {
        if (key == 0) {
            return zeroValue;
        }
        int mask = keys.length - 1;
        for (int i = spread(key) & mask; ; i = (i + 1) & mask) {
            if (keys[i] == key) {
                return values[i];
            }
            if (keys[i] == 0) {
                return -1;
            }
        }
    }

    /** Maps a key that is not present yet to {@code value} (≥ 0). */
    void putNew(long key, int value) {
        size++;
        if (key == 0) {
            zeroValue = value;
            return;
        }
        if (2 * size > keys.length) {
            grow();
        }
        insert(keys, values, key, value);
    }

    int size() {
        return size;
    }

    private void grow() {
        long[] oldKeys = keys;
        int[] oldValues = values;
        keys = new long[oldKeys.length * 2];
        values = new int[oldKeys.length * 2];
        for (int i = 0; i < oldKeys.length; i++) {
            if (oldKeys[i] != 0) {
                insert(keys, values, oldKeys[i], oldValues[i]);
            }
        }
    }

    private static void insert(long[] keys, int[] values, long key, int value) {
        int mask = keys.length - 1;
        int i = spread(key) & mask;
        while (keys[i] != 0) {
            i = (i + 1) & mask;
        }
        keys[i] = key;
        values[i] = value;
    }

    private static int spread(long v) {
        long h = v * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 32));
    }
}
