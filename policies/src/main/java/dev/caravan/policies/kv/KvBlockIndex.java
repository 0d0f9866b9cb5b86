package dev.caravan.policies.kv;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which engine ranks hold which KV-cache blocks, keyed by Caravan's own chained hash of token ids ({@link BlockKeys}):
 * the ground truth {@code kv_aware} routes on. It works whatever hash algorithm, seed and id format the engines use,
 * because it never reproduces their hashes (docs/design/kv-index.md).
 *
 * <p><b>Ingestion</b> ({@link #apply}, one engine rank's events in publication order): a {@code BlockStored}'s keys
 * are computed from its {@code token_ids}, chained from its parent's key (looked up by the parent's engine id in the
 * rank's {@link RankBlocks}) or from the root of its LoRA adapter and {@code cache_salt} when it starts a sequence;
 * each engine id is mapped to its key, so a later {@code BlockRemoved} resolves. A known engine id keeps its key (CPU
 * offload stores carry no tokens). A block whose parent the rank never reported — the subscriber joined mid-stream, or
 * a replay did not reach back far enough — is an <em>orphan</em>: its key cannot be known, so it is dropped and
 * counted ({@link #orphanBlocks()}), never guessed; so are its descendants. No request could reach it anyway: a prefix
 * match walks from the root and stops at the unknown parent. A {@code BlockRemoved} of an unknown engine id is counted
 * ({@link #unknownRemovals()}) and ignored.
 *
 * <p><b>Groups and tiers.</b> An entry records which (tier, KV-cache group) pairs hold it; a removal in one group or
 * tier leaves the others. A block is routable on a tier while a <em>routing group</em> holds it there: a group whose
 * reported kind is full attention ({@code full_attention}, {@code mla_attention}, {@code sink_full_attention}), or a
 * group whose kind was never reported (older engines, single-group models). Sliding-window, chunked-local and Mamba
 * groups never make a block routable on their own; at lookup their rules ({@link GroupLayout}, learned from the
 * events' kinds and windows or set with {@link #configureGroups}) cut a hybrid model's run to the prefix every group
 * can serve (docs/design/hybrid-models.md).
 *
 * <p><b>Lookup</b> ({@link #longestPrefixes}): per rank, the consecutive leading request blocks it holds on any tier,
 * weighted by tier; per worker, its best rank. Lock-free; ranks whose holdings are prefix-closed are probed at a few
 * chain positions ({@link PrefixSearch}), the others walked block by block.
 *
 * <p><b>Memory bound</b>: at most {@code maxBlocksPerRank} entries per engine rank; beyond it the rank's
 * oldest-stored entries go first ({@link #droppedBlocks()}). Engines report every eviction, so the bound only bites
 * when events were lost or it is below an engine's block count. Bytes per (block, rank) entry are measured in
 * docs/performance.md.
 *
 * <p><b>Threads</b>: each worker's ingestion, clears and removal are serialised by that worker's lock; lookups run
 * on any number of request threads concurrently with them and see each block before or after a change.
 */
public final class KvBlockIndex {

    /** Default bound per engine rank: 131,072 blocks = 2M tokens at block size 16, above one 8-GPU engine's pool. */
    public static final int DEFAULT_MAX_BLOCKS_PER_RANK = 1 << 17;
    /** Distinct LoRA adapter names remembered from events (for {@link #isLoraName}). */
    static final int MAX_LORA_NAMES = 4096;

    private static final Logger LOG = LoggerFactory.getLogger(KvBlockIndex.class);

    private final int maxBlocksPerRank;
    private final KeyTable table = new KeyTable();
    private final ConcurrentHashMap<String, WorkerBlocks> workers = new ConcurrentHashMap<>();
    private final Set<String> loraNames = ConcurrentHashMap.newKeySet();
    private final BitSet usedSlots = new BitSet();
    /** slot → owner; replaced on every change so lookups read a consistent snapshot without locking. */
    private volatile Owner[] owners = new Owner[0];
    /**
     * Slots whose holdings are not prefix-closed ({@link RankIndex#defects()} &gt; 0), which the lookup walks block by
     * block; a bit set, replaced on every change. Each slot's bit is written only under its worker's lock.
     */
    private volatile long[] dirty = new long[0];
    private final RankIndex.Counters counters = new RankIndex.Counters();
    private final GroupHoldings groupHoldings = new GroupHoldings();
    /** slot → its rank's hybrid-model group rules, null for a rank without; replaced on every change. */
    private volatile GroupLayout[] layouts = new GroupLayout[0];
    /** worker id → the groups configured for its model (for engines that do not report them). */
    private volatile Function<String, List<KvGroupSpec>> configuredGroups = workerId -> List.of();
    /** Whether lookups apply the hybrid-model group rules (off: every rank is scored by full attention alone). */
    private volatile boolean groupRules = true;

    private record Owner(String workerId, int rank) {
    }

    /** One worker's ranks, guarded by the instance's monitor. */
    private static final class WorkerBlocks {
        final Map<Integer, RankIndex> ranks = new HashMap<>();
        volatile int resident;
        volatile int blockSize;
        volatile String layout;
        boolean removed;
    }

    /**
     * What one event changed, in Caravan's keys, for the other listeners (the parity self-check, the tree
     * calibration).
     *
     * @param stored  keys of the event's blocks now held on the GPU (already held ones included)
     * @param removed keys of the event's blocks the GPU no longer holds in that group
     * @param orphans blocks of the event dropped because their ancestry is unknown
     */
    public record Applied(long[] stored, long[] removed, int orphans) {
        static final Applied NONE = new Applied(new long[0], new long[0], 0);
    }

    /**
     * One engine rank's entries as a peer replica hands them to a replica that joins (replica sync): engine id, key
     * and holding mask (tier × group bits) per entry, with the rank's learned block size and non-routing groups. Only
     * hashes of token ids and the engines' own ids: no prompt text.
     */
    public record RankState(int rank, int blockSize, long nonRoutingGroups, long[] engineIds, long[] keys,
                            long[] masks) {
        public RankState {
            if (engineIds.length != keys.length || keys.length != masks.length) {
                throw new IllegalArgumentException("engineIds, keys and masks must have one entry each, were "
                        + engineIds.length + ", " + keys.length + ", " + masks.length);
            }
        }
    }

    public KvBlockIndex() {
        this(DEFAULT_MAX_BLOCKS_PER_RANK);
    }

    public KvBlockIndex(int maxBlocksPerRank) {
        if (maxBlocksPerRank < 1) {
            throw new IllegalArgumentException("maxBlocksPerRank must be >= 1, was " + maxBlocksPerRank);
        }
        this.maxBlocksPerRank = maxBlocksPerRank;
    }

    public int maxBlocksPerRank() {
        return maxBlocksPerRank;
    }

    /** Applies one event of {@code workerId}'s engine rank {@code rank}. */
    public Applied apply(String workerId, int rank, KvEvent event) {
        while (true) {
            WorkerBlocks w = workers.computeIfAbsent(workerId, id -> new WorkerBlocks());
            synchronized (w) {
                if (w.removed) {
                    continue; // lost a race with removeWorker: start over with a fresh state
                }
                RankIndex r = w.ranks.get(rank);
                if (r == null) {
                    r = newRank(workerId, rank);
                    w.ranks.put(rank, r);
                }
                Applied applied;
                if (event instanceof KvEvent.BlockStored s) {
                    applied = r.stored(s);
                } else if (event instanceof KvEvent.BlockRemoved rm) {
                    applied = r.removed(rm);
                } else {
                    r.clear();
                    configure(workerId, r);
                    applied = Applied.NONE;
                }
                w.resident = residentLocked(w);
                w.blockSize = blockSizeLocked(w);
                markDirty(r);
                publishLayout(w, r);
                return applied;
            }
        }
    }

    /** The largest of the worker's ranks' block sizes (its ranks share one; a rank not heard from yet says 0). */
    private static int blockSizeLocked(WorkerBlocks w) {
        int bs = 0;
        for (RankIndex r : w.ranks.values()) {
            bs = Math.max(bs, r.blockSize());
        }
        return bs;
    }

    private static int residentLocked(WorkerBlocks w) {
        int n = 0;
        for (RankIndex r : w.ranks.values()) {
            n += r.size();
        }
        return n;
    }

    /**
     * Forgets every block of one engine rank (it sent {@code AllBlocksCleared}, or its publisher restarted).
     *
     * @return how many entries were dropped
     */
    public int clearRank(String workerId, int rank) {
        WorkerBlocks w = workers.get(workerId);
        if (w == null) {
            return 0;
        }
        synchronized (w) {
            RankIndex r = w.ranks.get(rank);
            int n = r == null ? 0 : r.clear();
            if (r != null) {
                configure(workerId, r);
                markDirty(r);
                publishLayout(w, r);
            }
            w.resident = residentLocked(w);
            w.blockSize = blockSizeLocked(w);
            return n;
        }
    }

    /** Forgets every block of every rank of the worker, keeping its slots. */
    public int clearWorker(String workerId) {
        WorkerBlocks w = workers.get(workerId);
        if (w == null) {
            return 0;
        }
        synchronized (w) {
            int n = 0;
            for (RankIndex r : w.ranks.values()) {
                n += r.clear();
                configure(workerId, r);
                markDirty(r);
                publishLayout(w, r);
            }
            w.resident = 0;
            w.blockSize = 0;
            return n;
        }
    }

    /** Forgets the worker entirely (it left). Remove its event routes first: a later event would register it again. */
    public void removeWorker(String workerId) {
        WorkerBlocks w = workers.remove(workerId);
        if (w == null) {
            return;
        }
        int cleared = 0;
        synchronized (w) {
            for (RankIndex r : w.ranks.values()) {
                cleared += r.clear();
                freeSlot(r.slot);
            }
            w.removed = true;
            w.resident = 0;
        }
        LOG.info("KV index: removed worker {} ({} blocks dropped)", workerId, cleared);
    }

    /** Every rank's entries of the worker (empty for an unknown worker), for a peer replica that joins. */
    public List<RankState> export(String workerId) {
        WorkerBlocks w = workers.get(workerId);
        if (w == null) {
            return List.of();
        }
        synchronized (w) {
            List<RankState> out = new ArrayList<>(w.ranks.size());
            w.ranks.forEach((rank, r) -> out.add(r.export(rank)));
            return out;
        }
    }

    /**
     * Adds a peer replica's entries of the worker ({@link #export} on the peer) that this index does not know; what
     * the worker's live events already said wins. Returns the entries added.
     */
    public int restore(String workerId, List<RankState> ranks) {
        while (true) {
            WorkerBlocks w = workers.computeIfAbsent(workerId, id -> new WorkerBlocks());
            synchronized (w) {
                if (w.removed) {
                    continue; // lost a race with removeWorker
                }
                int added = 0;
                for (RankState state : ranks) {
                    RankIndex r = w.ranks.get(state.rank());
                    if (r == null) {
                        r = newRank(workerId, state.rank());
                        w.ranks.put(state.rank(), r);
                    }
                    added += r.restore(state);
                    markDirty(r);
                    publishLayout(w, r);
                }
                w.resident = residentLocked(w);
                w.blockSize = blockSizeLocked(w);
                return added;
            }
        }
    }

    /** The LoRA adapter names engines reported (a snapshot), for a peer replica that joins. */
    public Set<String> loraNames() {
        return Set.copyOf(loraNames);
    }

    /** Remembers adapter names a peer replica heard ({@link #loraNames} there), within the index's bound. */
    public void addLoraNames(Collection<String> names) {
        for (String n : names) {
            if (loraNames.size() >= MAX_LORA_NAMES) {
                return;
            }
            loraNames.add(n);
        }
    }

    /**
     * Sets the KV-cache groups of each worker's engine that its events do not describe (a chunked-local group's chunk
     * is never reported; older engines report no kinds): worker id → its model's groups. Applies to ranks heard from
     * after the call and to ranks after a clear; what an engine reports wins.
     */
    public void configureGroups(Function<String, List<KvGroupSpec>> groupsByWorker) {
        this.configuredGroups = groupsByWorker == null ? workerId -> List.of() : groupsByWorker;
    }

    /**
     * Turns the hybrid-model group rules on (the default) or off; off, a hybrid model's rank is scored by its
     * full-attention run alone, as routers that ignore the groups do.
     */
    public void useGroupRules(boolean on) {
        this.groupRules = on;
    }

    /**
     * The worker's KV-cache group layout as a label: {@code full} for models with full attention only, else
     * {@code full+} the other kinds with a rule, e.g. {@code full+sliding_window}.
     */
    public String layout(String workerId) {
        WorkerBlocks w = workers.get(workerId);
        return w == null || w.layout == null ? "full" : w.layout;
    }

    private RankIndex newRank(String workerId, int rank) {
        RankIndex r = new RankIndex(newSlot(workerId, rank), table, maxBlocksPerRank, counters, loraNames,
                groupHoldings);
        configure(workerId, r);
        return r;
    }

    private void configure(String workerId, RankIndex r) {
        List<KvGroupSpec> specs = configuredGroups.apply(workerId);
        if (specs != null) {
            for (KvGroupSpec g : specs) {
                r.configure(g.group(), GroupLayout.Kind.of(g.kind()), g.span());
            }
        }
    }

    /** Publishes the rank's group rules if they changed; called under its worker's lock. */
    private void publishLayout(WorkerBlocks w, RankIndex r) {
        boolean[] changed = new boolean[1];
        GroupLayout l = r.layout(changed);
        if (!changed[0]) {
            return;
        }
        w.layout = l == null ? null : l.label();
        synchronized (usedSlots) {
            GroupLayout[] current = layouts;
            if (r.slot >= current.length && l == null) {
                return;
            }
            GroupLayout[] next = Arrays.copyOf(current, Math.max(current.length, r.slot + 1));
            next[r.slot] = l;
            layouts = next;
        }
    }

    private int newSlot(String workerId, int rank) {
        synchronized (usedSlots) {
            int slot = usedSlots.nextClearBit(0);
            usedSlots.set(slot);
            Owner[] o = owners;
            o = slot >= o.length ? Arrays.copyOf(o, Math.max(8, slot * 2)) : o.clone();
            o[slot] = new Owner(workerId, rank);
            owners = o;
            return slot;
        }
    }

    /** Publishes whether the rank's holdings have holes; called under its worker's lock after every change. */
    private void markDirty(RankIndex r) {
        int word = r.slot >>> 6;
        long bit = 1L << r.slot;
        boolean want = r.defects() > 0;
        long[] current = dirty;
        boolean is = word < current.length && (current[word] & bit) != 0;
        if (is != want) {
            synchronized (usedSlots) {
                long[] d = Arrays.copyOf(dirty, Math.max(dirty.length, word + 1));
                d[word] = want ? d[word] | bit : d[word] & ~bit;
                dirty = d;
            }
        }
    }

    private void freeSlot(int slot) {
        synchronized (usedSlots) {
            usedSlots.clear(slot);
            if (slot >>> 6 < dirty.length) {
                long[] d = dirty.clone();
                d[slot >>> 6] &= ~(1L << slot);
                dirty = d;
            }
            Owner[] o = owners.clone();
            o[slot] = null;
            owners = o;
            if (slot < layouts.length) {
                GroupLayout[] l = layouts.clone();
                l[slot] = null;
                layouts = l;
            }
        }
    }

    /**
     * Per worker, the longest run of {@code keys} (a request's block keys, in order) one of its ranks holds from the
     * first block, on any tier (llm-d's LongestPrefix, Dynamo's overlap). Each block counts 1 on the GPU,
     * {@code cpuWeight} or {@code diskWeight} on a lower tier (the best tier that holds it), summed in chain order.
     *
     * <p>A key stands for its whole prefix, so for a rank whose holdings are prefix-closed ({@link RankLineage}: no
     * defects) holding key i means holding keys 0..i on a tier at least as good, and its three runs (any tier, host
     * memory or better, GPU) end where the holder bits first drop. The lookup reads key 0, gallops (keys 1, 2, 4,
     * 8, ...) while any such rank still holds the key, and bisects each interval in which some rank's bits drop, all
     * ranks at once: about {@code log2(run)} reads per distinct run end instead of one per block. Ranks with defects
     * are walked block by block from key 0 until none of them holds the key.
     */
    public PrefixMatches longestPrefixes(long[] keys, double cpuWeight, double diskWeight) {
        return longestPrefixes(KeyChain.of(keys), Integer.MAX_VALUE, cpuWeight, diskWeight);
    }

    /**
     * {@link #longestPrefixes(long[], double, double)} of a request's chain as the key cache holds it. For ranks of a
     * hybrid model ({@link GroupLayout}), the run is cut to the hit every KV-cache group serves, at most
     * {@code limitTokens} long (the engine's limit: the prompt but its last token).
     */
    public PrefixMatches longestPrefixes(KeyChain keys, int limitTokens, double cpuWeight, double diskWeight) {
        if (keys.length() == 0) {
            return PrefixMatches.none(0);
        }
        long[] first = table.get(keys.get(0));
        if (first == null) {
            return PrefixMatches.none(keys.length());
        }
        Owner[] o = owners;
        int words = (o.length + 63) >>> 6;
        Runs runs = new Runs(words * 64);
        long[] start = PrefixSearch.state(first, words, null);
        long[] dirtyNow = dirty;
        long[] walk = new long[words];
        boolean anyWalk = false;
        for (int w = 0; w < words; w++) {
            long d = w < dirtyNow.length ? dirtyNow[w] : 0;
            walk[w] = start[w] & d;
            anyWalk |= walk[w] != 0;
            for (int level = 0; level < 3; level++) {
                start[level * words + w] &= ~d;
            }
        }
        if (!PrefixSearch.empty(start)) {
            new PrefixSearch(table, keys, words, runs).run(start, cpuWeight, diskWeight);
        }
        if (anyWalk) {
            walk(keys, first, words, walk, runs, cpuWeight, diskWeight);
        }
        GroupLayout[] l = layouts;
        for (int s = 0; groupRules && s < Math.min(l.length, o.length); s++) {
            if (l[s] != null) {
                applyGroups(l[s], s, keys, limitTokens, runs, cpuWeight, diskWeight);
            }
        }
        Map<String, PrefixMatches.Match> best = new HashMap<>();
        for (int s = 0; s < o.length; s++) {
            Owner owner = o[s];
            int blocks = runs.gpu[s] + runs.cpu[s] + runs.disk[s];
            if (owner == null || (blocks == 0 && runs.run[s] == 0)) {
                continue;
            }
            PrefixMatches.Match m = new PrefixMatches.Match(owner.rank(), blocks, runs.gpuRun[s], runs.score[s],
                    Math.max(blocks, runs.run[s]));
            best.merge(owner.workerId(), m, (a, b) -> b.score() > a.score()
                    || (b.score() == a.score() && b.rank() < a.rank()) ? b : a);
        }
        return new PrefixMatches(keys.length(), best);
    }

    /**
     * Per slot, the blocks of its leading run on the GPU, on host memory (not the GPU) and on storage only, its
     * leading GPU run and its tier-weighted score.
     */
    static final class Runs {
        final int[] gpu;
        final int[] cpu;
        final int[] disk;
        final int[] gpuRun;
        final double[] score;
        /** The run before a hybrid model's groups cut it; 0 when they did not. */
        final int[] run;

        Runs(int slots) {
            run = new int[slots];
            gpu = new int[slots];
            cpu = new int[slots];
            disk = new int[slots];
            gpuRun = new int[slots];
            score = new double[slots];
        }
    }

    /**
     * Cuts a hybrid-model rank's run to the hit its groups serve. The blocks kept are the run's first ones, so its
     * GPU blocks are kept first, then host memory, then storage (the order of a prefix-closed rank's runs).
     */
    private void applyGroups(GroupLayout layout, int s, KeyChain keys, int limitTokens, Runs runs, double cpuWeight,
                             double diskWeight) {
        int blocks = runs.gpu[s] + runs.cpu[s] + runs.disk[s];
        if (blocks == 0) {
            return;
        }
        int n = keys.length();
        int hit = layout.hitBlocks(blocks, limitTokens,
                (group, i) -> i < n && groupHoldings.holds(group, keys.get(i), s));
        if (hit >= blocks) {
            return;
        }
        runs.run[s] = blocks;
        int gpu = Math.min(runs.gpu[s], hit);
        int cpu = Math.min(runs.cpu[s], hit - gpu);
        int disk = hit - gpu - cpu;
        runs.gpu[s] = gpu;
        runs.cpu[s] = cpu;
        runs.disk[s] = disk;
        runs.gpuRun[s] = Math.min(runs.gpuRun[s], hit);
        runs.score[s] = gpu + cpu * cpuWeight + disk * diskWeight;
    }

    /** The block-by-block walk for the ranks in {@code alive} (ranks whose holdings may have holes). */
    private void walk(KeyChain keys, long[] first, int words, long[] alive, Runs runs, double cpuWeight,
                      double diskWeight) {
        long[] gpuAlive = alive.clone();
        long[] bits = first;
        for (int d = 0; d < keys.length(); d++) {
            if (d > 0) {
                bits = table.get(keys.get(d));
                if (bits == null) {
                    break;
                }
            }
            int bw = Holders.words(bits);
            boolean any = false;
            for (int w = 0; w < words; w++) {
                long gpu = w < bw ? bits[w] : 0;
                long cpu = w < bw ? bits[bw + w] & ~gpu : 0;
                long disk = w < bw ? bits[2 * bw + w] & ~gpu & ~cpu : 0;
                long present = (gpu | cpu | disk) & alive[w];
                alive[w] = present;
                gpuAlive[w] &= gpu & present;
                any |= present != 0;
                for (long b = present; b != 0; b &= b - 1) {
                    int s = w * 64 + Long.numberOfTrailingZeros(b);
                    long one = b & -b;
                    if ((gpu & one) != 0) {
                        runs.gpu[s]++;
                        runs.score[s] += 1.0;
                    } else if ((cpu & one) != 0) {
                        runs.cpu[s]++;
                        runs.score[s] += cpuWeight;
                    } else {
                        runs.disk[s]++;
                        runs.score[s] += diskWeight;
                    }
                    if ((gpuAlive[w] & one) != 0) {
                        runs.gpuRun[s]++;
                    }
                }
            }
            if (!any) {
                break;
            }
        }
    }

    /** The block size the worker's engine reported (largest over its ranks), 0 before its first store. */
    public int blockSize(String workerId) {
        WorkerBlocks w = workers.get(workerId);
        return w == null ? 0 : w.blockSize;
    }

    /** True when some engine reported blocks of this LoRA adapter ({@code lora_name}). */
    public boolean isLoraName(String name) {
        return name != null && loraNames.contains(name);
    }

    /** True when one of the worker's ranks holds the key routably on the tier. */
    public boolean holds(String workerId, long key, KvTier tier) {
        long[] bits = table.get(key);
        if (bits == null) {
            return false;
        }
        Owner[] o = owners;
        for (int s = 0; s < o.length; s++) {
            if (o[s] != null && o[s].workerId().equals(workerId) && Holders.has(bits, tier.ordinal(), s)) {
                return true;
            }
        }
        return false;
    }

    /** The holder bits of {@code key} ({@link Holders}), null when nobody holds it; for tests. */
    long[] holderBits(long key) {
        return table.get(key);
    }

    /** The slot of the worker's rank, -1 when it has none; for tests. */
    int slot(String workerId, int rank) {
        Owner[] o = owners;
        for (int s = 0; s < o.length; s++) {
            if (o[s] != null && o[s].workerId().equals(workerId) && o[s].rank() == rank) {
                return s;
            }
        }
        return -1;
    }

    /** Entries the worker's ranks hold (every tier and group), 0 for an unknown worker. */
    public int residentBlocks(String workerId) {
        WorkerBlocks w = workers.get(workerId);
        return w == null ? 0 : w.resident;
    }

    /** {@link #residentBlocks} of every known worker (a snapshot). */
    public Map<String, Integer> residentBlockCounts() {
        Map<String, Integer> out = new HashMap<>();
        workers.forEach((id, w) -> out.put(id, w.resident));
        return out;
    }

    /** Distinct block keys some rank holds routably. */
    public long distinctBlocks() {
        return table.size();
    }

    /** Entries dropped because a rank exceeded {@link #maxBlocksPerRank()}. */
    public long droppedBlocks() {
        return counters.dropped().sum();
    }

    /** Stored blocks dropped because their parent was never reported (joined mid-stream, short replay). */
    public long orphanBlocks() {
        return counters.orphans().sum();
    }

    /** Removals of engine ids the rank never reported stored (in that tier and group). */
    public long unknownRemovals() {
        return counters.unknownRemovals().sum();
    }

    /** Blocks in events whose {@code medium} is not a known tier (not indexed). */
    public long unknownMediumBlocks() {
        return counters.unknownMedia().sum();
    }
}
