package dev.caravan.policies.kv;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;

/**
 * One engine rank inside the {@link KvBlockIndex}: its slot in the shared holder bit sets, its engine-id map
 * ({@link RankBlocks}) and how its events change both (the rules are the index's, documented there). Not thread-safe:
 * the index calls it under the rank's worker lock.
 */
final class RankIndex {

    /** Removed entries per rank whose key is kept to resolve a following lower-tier store. */
    static final int RECENTLY_REMOVED = 8192;
    private static final Set<String> ROUTING_KINDS = Set.of("full_attention", "mla_attention", "sink_full_attention");

    /** The index-wide counters a rank adds to. */
    record Counters(LongAdder dropped, LongAdder orphans, LongAdder unknownRemovals, LongAdder unknownMedia) {
        Counters() {
            this(new LongAdder(), new LongAdder(), new LongAdder(), new LongAdder());
        }
    }

    private record Dupe(long key, int tier) {
    }

    /** {@link KvTier#values()} once: every transition visits the tiers. */
    private static final KvTier[] TIERS = KvTier.values();

    final int slot;
    private final KeyTable table;
    private final int maxBlocks;
    private final Counters counters;
    private final Set<String> loraNames;
    private final RankBlocks blocks = new RankBlocks();
    /** Whether the rank's routable keys are prefix-closed (what the lookup's probing relies on). */
    private final RankLineage lineage = new RankLineage();
    /** Groups whose reported kind is not full attention. */
    private long nonRoutingGroups;
    /** Tokens per block, from the rank's latest store of a routing group; 0 before the first. */
    private int blockSize;
    /** (key, tier) → extra holders beyond the first: distinct engine ids of this rank with the same key. */
    private final Map<Dupe, Integer> dupes = new HashMap<>();
    /** Engine id → key of the entries that last left every tier, for a store on a lower tier that follows. */
    private final RecentlyRemoved recentlyRemoved = new RecentlyRemoved(RECENTLY_REMOVED);

    RankIndex(int slot, KeyTable table, int maxBlocks, Counters counters, Set<String> loraNames) {
        this.slot = slot;
        this.table = table;
        this.maxBlocks = maxBlocks;
        this.counters = counters;
        this.loraNames = loraNames;
    }

    int size() {
        return blocks.size();
    }

    int blockSize() {
        return blockSize;
    }

    /** Level gaps of routable keys whose parent this rank holds on no tier as good ({@link RankLineage}); 0 = closed. */
    long defects() {
        return lineage.defects();
    }

    /** Applies a BlockStored; returns what it changed. */
    KvBlockIndex.Applied stored(KvEvent.BlockStored s) {
        KvTier tier = KvTier.of(s.medium());
        long[] hashes = s.blockHashes();
        if (tier == null) {
            counters.unknownMedia().add(hashes.length);
            return KvBlockIndex.Applied.NONE;
        }
        int group = s.groupIdx() == null ? 0 : s.groupIdx();
        if (s.kvCacheSpecKind() != null && group < RankBlocks.GROUP_BITS
                && !ROUTING_KINDS.contains(s.kvCacheSpecKind().toLowerCase(Locale.ROOT))) {
            nonRoutingGroups |= 1L << group;
        }
        if (s.loraName() != null && loraNames.size() < KvBlockIndex.MAX_LORA_NAMES) {
            loraNames.add(s.loraName());
        }
        int[] tokens = s.tokenIds();
        int bs = s.blockSize() > 0 ? s.blockSize()
                : hashes.length > 0 && tokens.length % hashes.length == 0 ? tokens.length / hashes.length : 0;
        if (bs > 0 && tokens.length >= bs * hashes.length && (nonRoutingGroups & (1L << group)) == 0) {
            blockSize = bs; // the latest routing-group store's: one bad store does not set it for good
        }
        long bit = RankBlocks.bit(tier, group);
        long[] out = new long[hashes.length];
        int n = 0;
        int orphaned = 0;
        byte[] scratch = null;
        boolean known = true;
        long parentKey = 0;
        boolean fromRoot = s.parentBlockHash() == null;
        if (fromRoot) {
            parentKey = s.loraName() == null && s.cacheSalt() == null ? BlockKeys.PLAIN_ROOT
                    : BlockKeys.root(s.loraName(), s.cacheSalt());
        } else {
            int p = blocks.find(s.parentBlockHash());
            if (p >= 0) {
                parentKey = blocks.keyAt(p);
            } else if (recentlyRemoved.contains(s.parentBlockHash())) {
                parentKey = recentlyRemoved.get(s.parentBlockHash());
            } else {
                known = false;
            }
        }
        for (int i = 0; i < hashes.length; i++) {
            int slot = blocks.find(hashes[i]);
            boolean wasRemoved = slot < 0 && recentlyRemoved.contains(hashes[i]);
            long gone = wasRemoved ? recentlyRemoved.get(hashes[i]) : 0;
            if (wasRemoved) {
                recentlyRemoved.remove(hashes[i]);
            }
            byte kind = !known ? RankLineage.PARENT_UNKNOWN
                    : i == 0 && fromRoot ? RankLineage.PARENT_ROOT : RankLineage.PARENT_KEY;
            long key;
            if (slot >= 0) {
                key = blocks.keyAt(slot);
                long before = blocks.maskAt(slot);
                blocks.setMask(slot, before | bit);
                lineage.link(key, kind, parentKey);
                transition(key, before, before | bit);
                lineage.settle(key);
            } else if (wasRemoved) {
                key = gone;
                blocks.insert(hashes[i], key, bit);
                lineage.link(key, kind, parentKey);
                transition(key, 0, bit);
                lineage.settle(key);
                enforceBound();
            } else if (known && bs > 0 && tokens.length >= (i + 1) * bs) {
                if (scratch == null) {
                    scratch = new byte[8 + 4 * bs];
                }
                key = BlockKeys.next(parentKey, tokens, i * bs, bs, s.extra(i), scratch);
                blocks.insert(hashes[i], key, bit);
                lineage.link(key, kind, parentKey);
                transition(key, 0, bit);
                lineage.settle(key);
                enforceBound();
            } else {
                known = false; // this block's key is unknowable, and so are its descendants'
                orphaned++;
                continue;
            }
            known = true;
            parentKey = key;
            if (tier == KvTier.GPU) {
                out[n++] = key;
            }
        }
        if (orphaned > 0) {
            counters.orphans().add(orphaned);
        }
        return new KvBlockIndex.Applied(Arrays.copyOf(out, n), new long[0], orphaned);
    }

    /** Applies a BlockRemoved; returns what it changed. */
    KvBlockIndex.Applied removed(KvEvent.BlockRemoved rm) {
        KvTier tier = KvTier.of(rm.medium());
        long[] hashes = rm.blockHashes();
        if (tier == null) {
            counters.unknownMedia().add(hashes.length);
            return KvBlockIndex.Applied.NONE;
        }
        long bit = RankBlocks.bit(tier, rm.groupIdx() == null ? 0 : rm.groupIdx());
        long[] out = new long[hashes.length];
        int n = 0;
        for (long h : hashes) {
            int slot = blocks.find(h);
            if (slot < 0 || (blocks.maskAt(slot) & bit) == 0) {
                counters.unknownRemovals().increment();
                continue;
            }
            long key = blocks.keyAt(slot);
            long before = blocks.maskAt(slot);
            long after = before & ~bit;
            transition(key, before, after);
            if (after == 0) {
                blocks.delete(slot);
                recentlyRemoved.put(h, key);
            } else {
                blocks.setMask(slot, after);
            }
            if (tier == KvTier.GPU) {
                out[n++] = key;
            }
        }
        return new KvBlockIndex.Applied(new long[0], Arrays.copyOf(out, n), 0);
    }

    /** Updates the shared holder bits for the tiers on which the entry became or stopped being routable. */
    private void transition(long key, long before, long after) {
        for (KvTier t : TIERS) {
            boolean was = (RankBlocks.groupsOn(before, t) & ~nonRoutingGroups) != 0;
            boolean is = (RankBlocks.groupsOn(after, t) & ~nonRoutingGroups) != 0;
            if (!was && is) {
                addHolder(key, t.ordinal());
            } else if (was && !is) {
                removeHolder(key, t.ordinal());
            }
        }
    }

    private void addHolder(long key, int tier) {
        if (!table.addHolder(key, tier, slot)) {
            dupes.merge(new Dupe(key, tier), 1, Integer::sum);
        }
        lineage.tier(key, tier, true);
    }

    private void removeHolder(long key, int tier) {
        Dupe d = new Dupe(key, tier);
        Integer extra = dupes.get(d);
        if (extra != null) {
            if (extra == 1) {
                dupes.remove(d);
            } else {
                dupes.put(d, extra - 1);
            }
            return;
        }
        table.removeHolder(key, tier, slot);
        lineage.tier(key, tier, false);
    }

    private void enforceBound() {
        while (blocks.size() > maxBlocks) {
            int oldest = blocks.oldest();
            if (oldest < 0) {
                return;
            }
            transition(blocks.keyAt(oldest), blocks.maskAt(oldest), 0);
            blocks.delete(oldest);
            counters.dropped().increment();
        }
    }

    /** This rank's entries, as a peer replica hands them to one that joins ({@link KvBlockIndex#export}). */
    KvBlockIndex.RankState export(int rank) {
        int n = blocks.size();
        long[] ids = new long[n];
        long[] keys = new long[n];
        long[] masks = new long[n];
        int[] i = {0};
        blocks.forEach((engineId, key, mask) -> {
            ids[i[0]] = engineId;
            keys[i[0]] = key;
            masks[i[0]++] = mask;
        });
        return new KvBlockIndex.RankState(rank, blockSize, nonRoutingGroups, ids, keys, masks);
    }

    /**
     * Adds a peer's entries whose engine ids this rank does not know (its own live events win); returns how many. An
     * empty rank also adopts the peer's block size and group kinds; a rank that already heard events keeps its own.
     */
    int restore(KvBlockIndex.RankState state) {
        if (blocks.size() == 0) {
            nonRoutingGroups = state.nonRoutingGroups();
        }
        if (blockSize == 0) {
            blockSize = state.blockSize();
        }
        int added = 0;
        for (int i = 0; i < state.engineIds().length; i++) {
            long mask = state.masks()[i];
            if (mask == 0 || blocks.find(state.engineIds()[i]) >= 0) {
                continue;
            }
            blocks.insert(state.engineIds()[i], state.keys()[i], mask);
            transition(state.keys()[i], 0, mask);
            added++;
            enforceBound();
        }
        return added;
    }

    /** Forgets every entry; returns how many there were. */
    int clear() {
        int[] n = new int[1];
        blocks.forEach((engineId, key, mask) -> {
            for (KvTier t : TIERS) {
                if ((RankBlocks.groupsOn(mask, t) & ~nonRoutingGroups) != 0) {
                    table.removeHolder(key, t.ordinal(), slot);
                }
            }
            n[0]++;
        });
        blocks.clear();
        lineage.clear();
        dupes.clear();
        recentlyRemoved.clear();
        nonRoutingGroups = 0;
        blockSize = 0;
        return n[0];
    }

}
