package dev.caravan.policies.kv;

import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Which engine ranks (slots) hold which block keys in each KV-cache group that is not full attention: what the
 * hybrid-model rules ({@link GroupRule}) read at the end of a rank's prefix run. One {@link KeyTable} per group index,
 * made when a rank first reports a block in that group (tier bit 0 holds "on any tier"). Writers are the ranks under
 * their worker's lock; lookups read without locking.
 */
final class GroupHoldings {

    private final AtomicReferenceArray<KeyTable> tables = new AtomicReferenceArray<>(RankBlocks.GROUP_BITS);

    /** Marks the key held by the slot in the group; false when it already was. */
    boolean add(int group, long key, int slot) {
        KeyTable t = tables.get(group);
        if (t == null) {
            tables.compareAndSet(group, null, new KeyTable());
            t = tables.get(group);
        }
        return t.addHolder(key, 0, slot);
    }

    void remove(int group, long key, int slot) {
        KeyTable t = tables.get(group);
        if (t != null) {
            t.removeHolder(key, 0, slot);
        }
    }

    boolean holds(int group, long key, int slot) {
        KeyTable t = tables.get(group);
        long[] bits = t == null ? null : t.get(key);
        return bits != null && Holders.has(bits, 0, slot);
    }

    /** Distinct keys held in any non-full-attention group (a key held in two groups counts twice). */
    long size() {
        long n = 0;
        for (int g = 0; g < tables.length(); g++) {
            KeyTable t = tables.get(g);
            n += t == null ? 0 : t.size();
        }
        return n;
    }
}
