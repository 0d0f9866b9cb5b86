package dev.caravan.bench.drive;

/**
 * An open-addressing set of longs (linear probing, power-of-two table, at most half full): the reuse tracker keeps
 * millions of block hashes for a trace replay, which as boxed {@code Long}s would cost ~10× the memory.
 * Not thread-safe.
 */
final class LongHashSet {

    private long[] table = new long[1 << 16];
    private boolean hasZero;
    private int size;

    /** Adds {@code v}; returns true if it was not present. */
    boolean add(long v) {
        if (v == 0) {
            boolean added = !hasZero;
            hasZero = true;
            size += added ? 1 : 0;
            return added;
        }
        if (2 * (size + 1) > table.length) {
            grow();
        }
        int mask = table.length - 1;
        for (int i = spread(v) & mask; ; i = (i + 1) & mask) {
            if (table[i] == v) {
                return false;
            }
            if (table[i] == 0) {
                table[i] = v;
                size++;
                return true;
            }
        }
    }

    boolean contains(long v) {
        if (v == 0) {
            return hasZero;
        }
        int mask = table.length - 1;
        for (int i = spread(v) & mask; ; i = (i + 1) & mask) {
            if (table[i] == v) {
                return true;
            }
            if (table[i] == 0) {
                return false;
            }
        }
    }

    int size() {
        return size;
    }

    private void grow() {
        long[] old = table;
        table = new long[old.length * 2];
        int mask = table.length - 1;
        for (long v : old) {
            if (v != 0) {
                int i = spread(v) & mask;
                while (table[i] != 0) {
                    i = (i + 1) & mask;
                }
                table[i] = v;
            }
        }
    }

    private static int spread(long v) {
        long h = v * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 32));
    }
}
