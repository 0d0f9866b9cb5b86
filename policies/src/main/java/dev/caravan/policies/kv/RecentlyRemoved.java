package dev.caravan.policies.kv;

import java.util.Arrays;

/**
 * Engine id → key of the last {@code capacity} entries removed from a rank, so that a block evicted from the GPU and
 * then stored on the CPU (write-on-evict offload; vLLM's CPU stores carry no tokens) is still resolvable. A ring of
 * the removals in order, with an open-addressing table (linear probing, backward-shift deletion) from id to ring
 * position; primitive arrays only, so the event stream allocates nothing here. A removal older than the last
 * {@code capacity} is forgotten. Not thread-safe: the rank's worker lock guards it.
 */
final class RecentlyRemoved {

    private final long[] ringIds;
    private final long[] ringKeys;
    /** Whether the ring position still maps its id (a later store takes the id back). */
    private final boolean[] ringLive;
    private int next;
    private final long[] tableIds;
    /** Ring position + 1, or 0 for an empty slot. */
    private final int[] tablePos;

    RecentlyRemoved(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be >= 1, was " + capacity);
        }
        ringIds = new long[capacity];
        ringKeys = new long[capacity];
        ringLive = new boolean[capacity];
        int slots = Integer.highestOneBit(capacity * 2 - 1) << 1; // load at most a half
        tableIds = new long[slots];
        tablePos = new int[slots];
    }

    private static int home(long id, int mask) {
        long z = id * 0x9E3779B97F4A7C15L;
        return (int) (z ^ (z >>> 32)) & mask;
    }

    private int slotOf(long id) {
        int mask = tableIds.length - 1;
        for (int i = home(id, mask); tablePos[i] != 0; i = (i + 1) & mask) {
            if (tableIds[i] == id) {
                return i;
            }
        }
        return -1;
    }

    /** Whether {@code id} was removed recently and not stored again since. */
    boolean contains(long id) {
        return slotOf(id) >= 0;
    }

    /** The key of recently removed {@code id}; only valid when {@link #contains} says so. */
    long get(long id) {
        return ringKeys[tablePos[slotOf(id)] - 1];
    }

    /** Forgets {@code id} (stored again); returns whether it was there. */
    boolean remove(long id) {
        int slot = slotOf(id);
        if (slot < 0) {
            return false;
        }
        ringLive[tablePos[slot] - 1] = false;
        deleteSlot(slot);
        return true;
    }

    /** Remembers that {@code id}, holding {@code key}, was removed; the oldest removal goes when the ring is full. */
    void put(long id, long key) {
        int slot = slotOf(id);
        if (slot >= 0) {
            ringKeys[tablePos[slot] - 1] = key;
            return;
        }
        int at = next;
        next = next + 1 == ringIds.length ? 0 : next + 1;
        if (ringLive[at]) {
            deleteSlot(slotOf(ringIds[at]));
        }
        ringIds[at] = id;
        ringKeys[at] = key;
        ringLive[at] = true;
        int mask = tableIds.length - 1;
        int i = home(id, mask);
        while (tablePos[i] != 0) {
            i = (i + 1) & mask;
        }
        tableIds[i] = id;
        tablePos[i] = at + 1;
    }

    /** Forgets everything. */
    void clear() {
        Arrays.fill(ringLive, false);
        Arrays.fill(tablePos, 0);
        next = 0;
    }

    private void deleteSlot(int i) {
        int mask = tableIds.length - 1;
        tablePos[i] = 0;
        int j = i;
        while (true) {
            j = (j + 1) & mask;
            if (tablePos[j] == 0) {
                return;
            }
            int h = home(tableIds[j], mask);
            boolean movable = j > i ? (h <= i || h > j) : (h <= i && h > j);
            if (movable) {
                tableIds[i] = tableIds[j];
                tablePos[i] = tablePos[j];
                tablePos[j] = 0;
                i = j;
            }
        }
    }
}
