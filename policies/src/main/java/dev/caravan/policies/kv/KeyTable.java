package dev.caravan.policies.kv;

import java.util.concurrent.locks.StampedLock;
import java.util.function.UnaryOperator;

/**
 * Block key → holders ({@code long[]} bit sets, immutable once published), the index's one shared map: read without
 * locks by every routing decision, written by the event pipelines. Primitive keys and open addressing keep an entry at
 * about 12 bytes plus its holder array (shared for the common single-holder case, {@link Holders#canonical}), where a
 * {@code ConcurrentHashMap<Long, long[]>} costs some 50.
 *
 * <p>Concurrency: {@value #STRIPES} stripes, each an open-addressing table (linear probing, backward-shift deletion)
 * under its own {@link StampedLock}. Writers take the stripe's write lock. Readers take an optimistic stamp, read, and
 * validate; only when a writer interfered do they retry under the read lock. Every read is bounded by the table
 * length it captured, so an interleaved resize or shift can produce a wrong answer (discarded by the validation) but
 * never an exception or a loop.
 */
final class KeyTable {

    static final int STRIPES = 256;
    private static final int INITIAL_CAPACITY = 64;

    private final Stripe[] stripes = new Stripe[STRIPES];

    KeyTable() {
        for (int i = 0; i < STRIPES; i++) {
            stripes[i] = new Stripe();
        }
    }

    private static final class Stripe {
        final StampedLock lock = new StampedLock();
        long[] keys = new long[INITIAL_CAPACITY];
        long[][] values = new long[INITIAL_CAPACITY][];
        int size;
    }

    private static long mix(long key) {
        long z = key * 0x9E3779B97F4A7C15L;
        return z ^ (z >>> 29);
    }

    private Stripe stripe(long mixed) {
        return stripes[(int) (mixed >>> 56) & (STRIPES - 1)];
    }

    /** The holders of {@code key}, or null when nobody holds it. */
    long[] get(long key) {
        long h = mix(key);
        Stripe s = stripe(h);
        long stamp = s.lock.tryOptimisticRead();
        long[] found = find(s.keys, s.values, key, h);
        if (s.lock.validate(stamp)) {
            return found;
        }
        stamp = s.lock.readLock();
        try {
            return find(s.keys, s.values, key, h);
        } finally {
            s.lock.unlockRead(stamp);
        }
    }

    private static long[] find(long[] keys, long[][] values, long key, long h) {
        if (keys.length != values.length) {
            return null; // captured across a resize; the caller's validation fails
        }
        int mask = keys.length - 1;
        for (int i = (int) h & mask, probes = 0; probes <= mask; i = (i + 1) & mask, probes++) {
            long[] v = values[i];
            if (v == null) {
                return null;
            }
            if (keys[i] == key) {
                return v;
            }
        }
        return null;
    }

    /**
     * Replaces the holders of {@code key} with {@code op(current)} (current is null when absent; a null result removes
     * the key). {@code op} runs under the stripe's write lock and must not call back into the table.
     */
    void update(long key, UnaryOperator<long[]> op) {
        long h = mix(key);
        Stripe s = stripe(h);
        long stamp = s.lock.writeLock();
        try {
            int i = position(s, key, h);
            long[] current = s.values[i];
            store(s, i, key, current, op.apply(current));
        } finally {
            s.lock.unlockWrite(stamp);
        }
    }

    /** Adds holder ({@code tier}, {@code slot}) to {@code key}; false when it already held it (nothing changes). */
    boolean addHolder(long key, int tier, int slot) {
        long h = mix(key);
        Stripe s = stripe(h);
        long stamp = s.lock.writeLock();
        try {
            int i = position(s, key, h);
            long[] current = s.values[i];
            if (current != null && Holders.has(current, tier, slot)) {
                return false;
            }
            store(s, i, key, current, Holders.with(current, tier, slot));
            return true;
        } finally {
            s.lock.unlockWrite(stamp);
        }
    }

    /** Removes holder ({@code tier}, {@code slot}) from {@code key}; the key goes with its last holder. */
    void removeHolder(long key, int tier, int slot) {
        long h = mix(key);
        Stripe s = stripe(h);
        long stamp = s.lock.writeLock();
        try {
            int i = position(s, key, h);
            long[] current = s.values[i];
            if (current != null) {
                store(s, i, key, current, Holders.without(current, tier, slot));
            }
        } finally {
            s.lock.unlockWrite(stamp);
        }
    }

    /** The slot holding {@code key}, or the empty slot where it would go; under the write lock. */
    private static int position(Stripe s, long key, long h) {
        int mask = s.keys.length - 1;
        int i = (int) h & mask;
        while (s.values[i] != null && s.keys[i] != key) {
            i = (i + 1) & mask;
        }
        return i;
    }

    /** Sets slot {@code i} from {@code current} to {@code next} (null: removed); under the write lock. */
    private static void store(Stripe s, int i, long key, long[] current, long[] next) {
        if (next == null) {
            if (current != null) {
                delete(s, i);
            }
        } else if (current != null) {
            s.values[i] = next;
        } else {
            s.keys[i] = key;
            s.values[i] = next;
            if (++s.size * 4 > s.keys.length * 3) {
                resize(s, s.keys.length * 2);
            }
        }
    }

    /** Backward-shift deletion: later entries of the probe run move up so no lookup stops early. */
    private static void delete(Stripe s, int i) {
        int mask = s.keys.length - 1;
        s.values[i] = null;
        s.size--;
        int j = i;
        while (true) {
            j = (j + 1) & mask;
            if (s.values[j] == null) {
                break;
            }
            int home = (int) mix(s.keys[j]) & mask;
            boolean movable = j > i ? (home <= i || home > j) : (home <= i && home > j);
            if (movable) {
                s.keys[i] = s.keys[j];
                s.values[i] = s.values[j];
                s.values[j] = null;
                i = j;
            }
        }
        if (s.keys.length > INITIAL_CAPACITY && s.size * 8 < s.keys.length) {
            resize(s, s.keys.length / 2);
        }
    }

    private static void resize(Stripe s, int capacity) {
        long[] keys = new long[capacity];
        long[][] values = new long[capacity][];
        int mask = capacity - 1;
        for (int i = 0; i < s.keys.length; i++) {
            if (s.values[i] != null) {
                int j = (int) mix(s.keys[i]) & mask;
                while (values[j] != null) {
                    j = (j + 1) & mask;
                }
                keys[j] = s.keys[i];
                values[j] = s.values[i];
            }
        }
        // values before keys: a reader that captures the new keys array with the old values sees different lengths
        s.values = values;
        s.keys = keys;
    }

    /** Keys in the table (a moment's count). */
    long size() {
        long n = 0;
        for (Stripe s : stripes) {
            long stamp = s.lock.readLock();
            try {
                n += s.size;
            } finally {
                s.lock.unlockRead(stamp);
            }
        }
        return n;
    }

    /** Slots allocated over all stripes (for memory accounting). */
    long capacity() {
        long n = 0;
        for (Stripe s : stripes) {
            long stamp = s.lock.readLock();
            try {
                n += s.keys.length;
            } finally {
                s.lock.unlockRead(stamp);
            }
        }
        return n;
    }
}
