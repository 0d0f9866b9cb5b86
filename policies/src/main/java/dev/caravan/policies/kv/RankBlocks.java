package dev.caravan.policies.kv;

/**
 * What one engine rank holds, keyed by the engine's own block ids: engine id → (our key, where it is held, when it was
 * stored). This is how a {@code BlockRemoved}, which names only engine ids, finds the key to drop, and how a
 * {@code BlockStored} whose {@code parent_block_hash} names an earlier block finds that block's key to chain from.
 *
 * <p>{@code mask} has one bit per (tier, KV-cache group): bit {@code tier * 16 + min(group, 15)}; an entry lives while
 * its mask is non-zero. Entries carry a storage sequence, so the index can drop a rank's oldest ones when it exceeds
 * its bound ({@link #oldest}).
 *
 * <p>{@value #SEGMENTS} {@link RankSegment}s chosen by the id's hash keep each array small (no G1 humongous objects);
 * a slot is {@code segment << 27 | slot in segment}, valid until the next change. Not thread-safe: the index guards
 * each worker's ranks with that worker's lock.
 */
final class RankBlocks {

    static final int GROUP_BITS = 16;
    static final int SEGMENTS = 16;
    private static final int SHIFT = 27;
    private static final int LOCAL = (1 << SHIFT) - 1;

    private final RankSegment[] segments = new RankSegment[SEGMENTS];
    private int nextSeq;

    RankBlocks() {
        for (int i = 0; i < SEGMENTS; i++) {
            segments[i] = new RankSegment();
        }
    }

    static long bit(KvTier tier, int group) {
        return 1L << (tier.ordinal() * GROUP_BITS + Math.min(Math.max(group, 0), GROUP_BITS - 1));
    }

    /** The groups holding the entry on {@code tier}, as a bit set over group indexes. */
    static long groupsOn(long mask, KvTier tier) {
        return (mask >>> (tier.ordinal() * GROUP_BITS)) & ((1L << GROUP_BITS) - 1);
    }

    private static int segment(long h) {
        return (int) ((h * 0x9E3779B97F4A7C15L) >>> 60);
    }

    int size() {
        int n = 0;
        for (RankSegment s : segments) {
            n += s.size();
        }
        return n;
    }

    /** The slot of engine id {@code h}, or -1. */
    int find(long h) {
        int s = segment(h);
        int i = segments[s].find(h);
        return i < 0 ? -1 : (s << SHIFT) | i;
    }

    long keyAt(int slot) {
        return segments[slot >>> SHIFT].keyAt(slot & LOCAL);
    }

    long maskAt(int slot) {
        return segments[slot >>> SHIFT].maskAt(slot & LOCAL);
    }

    void setMask(int slot, long bits) {
        segments[slot >>> SHIFT].setMask(slot & LOCAL, bits);
    }

    /** Adds engine id {@code h} (absent) with its key and first holding bit; returns its slot. */
    int insert(long h, long k, long bits) {
        int s = segment(h);
        return (s << SHIFT) | segments[s].insert(h, k, bits, nextSeq++);
    }

    /** Removes the entry at {@code slot}. */
    void delete(int slot) {
        segments[slot >>> SHIFT].delete(slot & LOCAL);
    }

    /** The slot of the oldest stored entry still present, or -1 when empty. */
    int oldest() {
        int best = -1;
        int bestSeq = 0;
        for (int s = 0; s < SEGMENTS; s++) {
            int i = segments[s].oldest();
            if (i >= 0) {
                int seq = segments[s].seqAt(i);
                if (best < 0 || seq - bestSeq < 0) { // storage order, wrap-safe
                    best = (s << SHIFT) | i;
                    bestSeq = seq;
                }
            }
        }
        return best;
    }

    /** Visits every entry. */
    void forEach(RankSegment.EntryVisitor visitor) {
        for (RankSegment s : segments) {
            s.forEach(visitor);
        }
    }

    /** Bytes held by the arrays (for the memory measurement). */
    long arrayBytes() {
        long n = 0;
        for (RankSegment s : segments) {
            n += s.arrayBytes();
        }
        return n;
    }

    /** Forgets everything. */
    void clear() {
        for (RankSegment s : segments) {
            s.clear();
        }
    }
}
