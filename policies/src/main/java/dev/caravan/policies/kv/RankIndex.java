package dev.caravan.policies.kv;

import java.util.Arrays;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
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
    /** Per group: its kind, sliding window (tokens, 0 = none) and block size as reported or configured. */
    private final GroupLayout.Kind[] kinds = new GroupLayout.Kind[RankBlocks.GROUP_BITS];
    private final int[] spans = new int[RankBlocks.GROUP_BITS];
    private final int[] groupBlocks = new int[RankBlocks.GROUP_BITS];
    /** The rules of the rank's non-full-attention groups, null when it has none; rebuilt when what it rests on changes. */
    private GroupLayout layout;
    private boolean layoutStale;
    private final GroupHoldings groupHoldings;
    /** {@link #resolveParent}'s result (no allocation per event: the index applies millions a second). */
    private long resolvedParent;
    /** Tokens per block, from the rank's latest store of a routing group; 0 before the first. */
    private int blockSize;
    /** (key, tier) → extra holders beyond the first: distinct engine ids of this rank with the same key. */
    private final Map<Dupe, Integer> dupes = new HashMap<>();
    /** Engine id → key of the entries that last left every tier, for a store on a lower tier that follows. */
    private final RecentlyRemoved recentlyRemoved = new RecentlyRemoved(RECENTLY_REMOVED);

    RankIndex(int slot, KeyTable table, int maxBlocks, Counters counters, Set<String> loraNames,
              GroupHoldings groupHoldings) {
        this.slot = slot;
        this.groupHoldings = groupHoldings;
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
        if (s.kvCacheSpecKind() != null && group < RankBlocks.GROUP_BITS) {
            learn(group, GroupLayout.Kind.of(s.kvCacheSpecKind()), s.slidingWindow() == null ? 0 : s.slidingWindow(),
                    s.blockSize());
        }
        if (s.loraName() != null && loraNames.size() < KvBlockIndex.MAX_LORA_NAMES) {
            loraNames.add(s.loraName());
        }
        int[] tokens = s.tokenIds();
        int bs = s.blockSize() > 0 ? s.blockSize()
                : hashes.length > 0 && tokens.length % hashes.length == 0 ? tokens.length / hashes.length : 0;
        boolean routing = (nonRoutingGroups & (1L << Math.min(group, RankBlocks.GROUP_BITS - 1))) == 0;
        if (bs > 0 && tokens.length >= bs * hashes.length && routing && bs != blockSize) {
            blockSize = bs; // the latest routing-group store's: one bad store does not set it for good
            layoutStale = true;
        }
        long bit = RankBlocks.bit(tier, group);
        int unit = blockSize > 0 ? blockSize : bs; // before any full-attention store: the group's own block
        if (!routing && unit > 0 && bs % unit == 0 && hashes.length > 0
                && (bs != unit || tokens.length / bs > hashes.length)) {
            return storedSparse(s, bit, tier, bs, unit);
        }
        long[] out = new long[hashes.length];
        int n = 0;
        int orphaned = 0;
        byte[] scratch = null;
        boolean fromRoot = s.parentBlockHash() == null;
        boolean known = resolveParent(s);
        long parentKey = resolvedParent;
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

    /**
     * Finds the key a store chains from into {@link #resolvedParent}: the root of its LoRA adapter and salt when it
     * starts a sequence, else its parent's key (held, or just removed); false when the parent is unknown.
     */
    private boolean resolveParent(KvEvent.BlockStored s) {
        Long parent = s.parentBlockHash();
        if (parent == null) {
            resolvedParent = s.loraName() == null && s.cacheSalt() == null ? BlockKeys.PLAIN_ROOT
                    : BlockKeys.root(s.loraName(), s.cacheSalt());
            return true;
        }
        int p = blocks.find(parent);
        if (p >= 0) {
            resolvedParent = blocks.keyAt(p);
            return true;
        }
        if (recentlyRemoved.contains(parent)) {
            resolvedParent = recentlyRemoved.get(parent);
            return true;
        }
        return false;
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

    /**
     * Updates the shared holder bits for the tiers on which the entry became or stopped being routable, and the
     * holdings of the non-full-attention groups that gained or lost it on any tier.
     */
    private void transition(long key, long before, long after) {
        if (nonRoutingGroups != 0) {
            long was = anyTier(before) & nonRoutingGroups;
            long is = anyTier(after) & nonRoutingGroups;
            for (long g = is & ~was; g != 0; g &= g - 1) {
                addGroupHolder(key, Long.numberOfTrailingZeros(g));
            }
            for (long g = was & ~is; g != 0; g &= g - 1) {
                removeGroupHolder(key, Long.numberOfTrailingZeros(g));
            }
        }
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

    private static long anyTier(long mask) {
        long groups = 0;
        for (KvTier t : TIERS) {
            groups |= RankBlocks.groupsOn(mask, t);
        }
        return groups;
    }

    private void addGroupHolder(long key, int group) {
        if (!groupHoldings.add(group, key, slot)) {
            dupes.merge(new Dupe(key, -1 - group), 1, Integer::sum);
        }
    }

    private void removeGroupHolder(long key, int group) {
        Dupe d = new Dupe(key, -1 - group);
        Integer extra = dupes.get(d);
        if (extra != null) {
            if (extra == 1) {
                dupes.remove(d);
            } else {
                dupes.put(d, extra - 1);
            }
            return;
        }
        groupHoldings.remove(group, key, slot);
    }

    /** Records what a store says of its group; a non-full-attention kind makes the group non-routing. */
    private void learn(int group, GroupLayout.Kind reported, int window, int groupBlock) {
        // a kind the engine cannot name (vLLM calls chunked-local groups "unknown") keeps what was configured
        GroupLayout.Kind kind = reported == GroupLayout.Kind.OTHER && kinds[group] != null ? kinds[group] : reported;
        if (kind != GroupLayout.Kind.FULL) {
            nonRoutingGroups |= 1L << group;
        }
        int span = kind == GroupLayout.Kind.SLIDING_WINDOW ? window : kind == GroupLayout.Kind.CHUNKED_LOCAL
                ? Math.max(window, spans[group]) : 0;
        if (kinds[group] != kind || spans[group] != span || (groupBlock > 0 && groupBlocks[group] != groupBlock)) {
            kinds[group] = kind;
            spans[group] = span;
            if (groupBlock > 0) {
                groupBlocks[group] = groupBlock;
            }
            layoutStale = true;
        }
    }

    /**
     * Sets a group's kind and span from configuration, for engines that do not report it (a chunked-local group's
     * chunk is never reported); what the engine reports later wins.
     */
    void configure(int group, GroupLayout.Kind kind, int span) {
        if (group < 0 || group >= RankBlocks.GROUP_BITS || kinds[group] != null) {
            return;
        }
        if (kind != GroupLayout.Kind.FULL) {
            nonRoutingGroups |= 1L << group;
        }
        kinds[group] = kind;
        spans[group] = span;
        layoutStale = true;
    }

    /**
     * The rank's group rules, rebuilt if what they rest on changed since the last call; null when it has none or a
     * group's block is not a whole number of key blocks. {@code changed[0]} tells whether it was rebuilt.
     */
    GroupLayout layout(boolean[] changed) {
        if (!layoutStale) {
            changed[0] = false;
            return layout;
        }
        layoutStale = false;
        changed[0] = true;
        List<GroupRule> rules = new ArrayList<>();
        for (int g = 0; g < RankBlocks.GROUP_BITS && blockSize > 0; g++) {
            if (kinds[g] == null) {
                continue;
            }
            int gb = groupBlocks[g] > 0 ? groupBlocks[g] : blockSize;
            if (gb % blockSize != 0) {
                layout = null;
                return null;
            }
            switch (kinds[g]) {
                case SLIDING_WINDOW -> {
                    if (spans[g] > 0) {
                        rules.add(new SlidingWindowRule(g, gb, spans[g]));
                    }
                }
                case CHUNKED_LOCAL -> {
                    if (spans[g] > 0) {
                        rules.add(new ChunkedLocalRule(g, gb, spans[g]));
                    }
                }
                case MAMBA -> rules.add(new MambaRule(g, gb));
                default -> {
                }
            }
        }
        layout = rules.isEmpty() ? null : new GroupLayout(blockSize, rules);
        return layout;
    }

    /**
     * A store of a non-full-attention group whose blocks are larger than the rank's key blocks, or that skipped
     * blocks: vLLM sends the tokens of the whole range but the hashes only of the blocks it cached (a sliding-window
     * group skips those outside the window, a Mamba group those without a state snapshot), and a group block's hash
     * is the hash of its last key block. The hashes therefore belong to the range's last blocks, one per group block,
     * each to the key block that ends its group block. An id the rank knows keeps its key.
     */
    private KvBlockIndex.Applied storedSparse(KvEvent.BlockStored s, long bit, KvTier tier, int bs, int u) {
        long[] hashes = s.blockHashes();
        int[] tokens = s.tokenIds();
        int per = bs / u;
        int subBlocks = tokens.length / u;
        boolean fromRoot = s.parentBlockHash() == null;
        boolean known = resolveParent(s);
        long parentKey = resolvedParent;
        long[] subKeys = null;
        if (known) {
            subKeys = new long[subBlocks];
            byte[] scratch = new byte[8 + 4 * u];
            long k = parentKey;
            for (int t = 0; t < subBlocks; t++) {
                k = BlockKeys.next(k, tokens, t * u, u, null, scratch);
                subKeys[t] = k;
            }
        }
        long[] out = new long[hashes.length];
        int n = 0;
        int orphaned = 0;
        for (int j = 0; j < hashes.length; j++) {
            int t = subBlocks - 1 - (hashes.length - 1 - j) * per;
            int slot = blocks.find(hashes[j]);
            long key;
            if (slot >= 0) {
                key = blocks.keyAt(slot);
                long before = blocks.maskAt(slot);
                blocks.setMask(slot, before | bit);
                transition(key, before, before | bit);
            } else if (subKeys != null && t >= 0) {
                key = subKeys[t];
                recentlyRemoved.remove(hashes[j]);
                blocks.insert(hashes[j], key, bit);
                lineage.link(key, t == 0 && fromRoot ? RankLineage.PARENT_ROOT : RankLineage.PARENT_KEY,
                        t == 0 ? parentKey : subKeys[t - 1]);
                transition(key, 0, bit);
                lineage.settle(key);
                enforceBound();
            } else {
                orphaned++;
                continue;
            }
            if (tier == KvTier.GPU) {
                out[n++] = key;
            }
        }
        if (orphaned > 0) {
            counters.orphans().add(orphaned);
        }
        return new KvBlockIndex.Applied(Arrays.copyOf(out, n), new long[0], orphaned);
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
            for (long g = anyTier(mask) & nonRoutingGroups; g != 0; g &= g - 1) {
                groupHoldings.remove(Long.numberOfTrailingZeros(g), key, slot);
            }
            n[0]++;
        });
        blocks.clear();
        lineage.clear();
        dupes.clear();
        recentlyRemoved.clear();
        nonRoutingGroups = 0;
        blockSize = 0;
        Arrays.fill(kinds, null);
        Arrays.fill(spans, 0);
        Arrays.fill(groupBlocks, 0);
        layoutStale = true;
        return n[0];
    }

}
