package dev.caravan.sim.engine.hybrid;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.function.IntPredicate;

import dev.caravan.sim.engine.KvPool;
import dev.caravan.sim.kv.KvEvent;
import dev.caravan.sim.kv.KvEvent.Medium;
import dev.caravan.sim.kv.KvGroup;

/**
 * The KV pool of a vLLM engine serving a hybrid model: one KV-cache group per layer type ({@link GroupRule}), every
 * group drawing its blocks from one shared pool of {@code capacityBlocks}, all groups keyed by the same block-hash
 * chain. A cached block belongs to one group: (hash, group) names it, and each group stores and removes its own
 * blocks, published with the group's {@link KvGroup}.
 *
 * <p>Per request and group: the hit (vLLM's coordinator rule, {@link HybridHit}) pins the blocks the group's rule
 * needs (a window's tail, a chunk's blocks, Mamba's one state); the prompt's other full blocks are stored at
 * admission (Mamba stores only the state at the prompt's last block boundary, vLLM's "align" mode, thinned by the
 * rule's retention); the partial prompt block and the output are reserved as anonymous blocks (Mamba: one running
 * state plus one per output block boundary). As the request computes ({@link #progress}), blocks its attention no
 * longer reads (vLLM's skipped blocks: outside the window, before the chunk, Mamba states behind the newest) are
 * released, last block first, and stay cached. On release the blocks the output completed are stored, then every
 * group's blocks are released, group by group, last block first. Released cached blocks wait in one LRU queue shared
 * by every group and are evicted from its head when room is needed.
 *
 * <p>A store event names only the blocks the group caches but carries the tokens of every block from the first one
 * computed, as vLLM's block pool publishes it (a Mamba prompt store names one state and spans the prompt; a state
 * left out by retention gives a store naming no block). A block already cached in the group is reused, not stored
 * twice. No CPU tier. Not thread-safe: one engine's scheduler thread owns it.
 */
public final class HybridPrefixCache implements KvPool {

    private final int blockSize;
    private final int capacityBlocks;
    private final List<GroupRule> rules;
    private final KvGroup[] tags;
    private final List<Map<Long, Block>> cached = new ArrayList<>();
    private final LinkedHashSet<Block> evictable = new LinkedHashSet<>();
    private final List<KvEvent> events;
    private int anonymous;
    private int pinned;
    private int resident;
    private long queriedTokens;
    private long hitTokens;

    /**
     * @param rules  the groups in group order ({@code group_idx} 0, 1, ...), all of block size {@code blockSize}
     * @param events where stores and removals are appended; the owner drains them once per scheduler step
     */
    public HybridPrefixCache(int blockSize, int capacityBlocks, List<GroupRule> rules, List<KvEvent> events) {
        if (capacityBlocks < 1) {
            throw new IllegalArgumentException("capacityBlocks must be >= 1, was " + capacityBlocks);
        }
        if (rules.isEmpty()) {
            throw new IllegalArgumentException("a hybrid pool needs at least one group");
        }
        for (GroupRule r : rules) {
            if (r.blockSize() != blockSize) {
                throw new IllegalArgumentException(r.kind() + " group block size " + r.blockSize()
                        + " != pool block size " + blockSize);
            }
        }
        this.blockSize = blockSize;
        this.capacityBlocks = capacityBlocks;
        this.rules = List.copyOf(rules);
        this.events = events;
        this.tags = new KvGroup[rules.size()];
        for (int g = 0; g < tags.length; g++) {
            tags[g] = new KvGroup(g, rules.get(g).kind(), rules.get(g).slidingWindow());
            cached.add(new HashMap<>());
        }
    }

    @Override
    public Lease allocate(long[] hashes, byte[][] digests, int[] tokens, int maxHitBlocks, int totalBlocks,
                          String cacheSalt) {
        int full = hashes.length;
        if (totalBlocks < full) {
            throw new IllegalArgumentException("totalBlocks " + totalBlocks + " < full prompt blocks " + full);
        }
        int groups = rules.size();
        List<IntPredicate> held = new ArrayList<>(groups);
        for (int g = 0; g < groups; g++) {
            Map<Long, Block> m = cached.get(g);
            held.add(i -> i < full && m.containsKey(hashes[i]));
        }
        int hit = HybridHit.longest(rules, held, Math.min(maxHitBlocks, full) * blockSize);
        int h = hit / blockSize;

        Lease a = new Lease(hit, tokens.length, groups, full);
        boolean[][] fresh = new boolean[groups][full];
        int needNew = 0;
        int reusedEvictable = 0;
        LinkedHashSet<Block> reused = new LinkedHashSet<>();
        for (int g = 0; g < groups; g++) {
            GroupRule rule = rules.get(g);
            Map<Long, Block> m = cached.get(g);
            for (int i = rule.skippedTokens(hit) / blockSize; i < h; i++) {
                Block b = m.get(hashes[i]);
                if (b != null) {
                    a.held[g][i] = b;
                    reused.add(b);
                }
            }
            for (int i = h; i < full; i++) {
                if (!stores(rule, i, full, tokens.length)) {
                    continue;
                }
                Block b = m.get(hashes[i]);
                if (b != null) {
                    a.held[g][i] = b;
                    reused.add(b);
                } else {
                    fresh[g][i] = true;
                    needNew++;
                }
            }
            a.anonymous[g] = rule instanceof MambaRule ? 1 + totalBlocks - full : totalBlocks - full;
            needNew += a.anonymous[g];
        }
        for (Block b : reused) {
            if (b.refs == 0) {
                reusedEvictable++;
            }
        }
        if (needNew > free() + evictable.size() - reusedEvictable) {
            return null;
        }
        for (Block b : reused) {
            pin(b);
        }
        while (free() < needNew) {
            evictOne();
        }
        for (int g = 0; g < groups; g++) {
            for (int i = h; i < full; i++) {
                if (fresh[g][i]) {
                    Block b = new Block(g, hashes[i], digests == null ? null : digests[i]);
                    b.refs = 1;
                    pinned++;
                    resident++;
                    cached.get(g).put(b.hash, b);
                    a.held[g][i] = b;
                }
            }
            anonymous += a.anonymous[g];
            if (rules.get(g) instanceof MambaRule mamba) {
                storeMambaPrompt(g, mamba, a, hashes, digests, tokens, h, full, fresh[g], cacheSalt);
            } else {
                storeRuns(g, hashes, digests, tokens, h, full, fresh[g], cacheSalt);
            }
        }
        queriedTokens += tokens.length;
        hitTokens += hit;
        return a;
    }

    /** Every group's share: its prompt and output blocks; Mamba's last prompt state, running state and output states. */
    @Override
    public int admissionBlocks(int fullPromptBlocks, int totalBlocks) {
        int n = 0;
        for (GroupRule rule : rules) {
            n += rule instanceof MambaRule ? (fullPromptBlocks > 0 ? 1 : 0) + 1 + totalBlocks - fullPromptBlocks
                    : totalBlocks;
        }
        return n;
    }

    /** Whether group {@code rule} keeps prompt block {@code i} past the hit: every block, or Mamba's last state. */
    private static boolean stores(GroupRule rule, int i, int full, int promptTokens) {
        if (rule instanceof MambaRule mamba) {
            return i == full - 1 && mamba.keeps(i, promptTokens);
        }
        return true;
    }

    private void storeRuns(int g, long[] hashes, byte[][] digests, int[] tokens, int from, int to, boolean[] fresh,
                           String cacheSalt) {
        int runStart = -1;
        for (int i = from; i <= to; i++) {
            if (i < to && fresh[i]) {
                if (runStart < 0) {
                    runStart = i;
                }
            } else if (runStart >= 0) {
                emitStored(g, hashes, digests, runStart, i, runStart, i, tokens, cacheSalt);
                runStart = -1;
            }
        }
    }

    /**
     * The prompt's Mamba store: the state at its last block boundary (the prefill's aligned chunk end), with the
     * tokens of every block computed since the hit; none when no block boundary lies past the hit or the state is
     * reused.
     */
    private void storeMambaPrompt(int g, MambaRule mamba, Lease a, long[] hashes, byte[][] digests, int[] tokens,
                                  int h, int full, boolean[] fresh, String cacheSalt) {
        if (full <= h || (a.held[g][full - 1] != null && !fresh[full - 1])) {
            return;
        }
        boolean named = fresh[full - 1];
        emitStored(g, hashes, digests, named ? full - 1 : full, full, h, full, tokens, cacheSalt);
    }

    /**
     * Appends a store of blocks {@code [from, to)} (possibly none) whose token span is blocks
     * {@code [spanFrom, spanTo)}; the parent is the block before the span.
     */
    private void emitStored(int g, long[] hashes, byte[][] digests, int from, int to, int spanFrom, int spanTo,
                            int[] tokens, String cacheSalt) {
        long[] run = Arrays.copyOfRange(hashes, from, to);
        Long parent = spanFrom == 0 ? null : hashes[spanFrom - 1];
        int[] toks = Arrays.copyOfRange(tokens, spanFrom * blockSize, spanTo * blockSize);
        events.add(new KvEvent.BlockStored(run, parent, toks, blockSize, Medium.GPU,
                from == 0 && to > 0 ? cacheSalt : null,
                digests == null ? null : Arrays.copyOfRange(digests, from, to),
                digests == null || spanFrom == 0 ? null : digests[spanFrom - 1], tags[g]));
    }

    @Override
    public void progress(KvPool.Lease lease, int computedTokens) {
        Lease a = (Lease) lease;
        if (a.released) {
            return;
        }
        for (int g = 0; g < rules.size(); g++) {
            int skip = Math.min(rules.get(g).skippedTokens(computedTokens) / blockSize, a.held[g].length);
            for (int i = skip - 1; i >= a.freedBelow[g]; i--) {
                if (a.held[g][i] != null) {
                    unpin(a.held[g][i]);
                    a.held[g][i] = null;
                }
            }
            a.freedBelow[g] = Math.max(a.freedBelow[g], skip);
        }
    }

    @Override
    public void release(KvPool.Lease lease, long[] allHashes, byte[][] allDigests, int[] allTokens,
                        int firstOutBlock, String cacheSalt) {
        Lease a = (Lease) lease;
        if (a.released) {
            return;
        }
        a.released = true;
        List<List<Block>> outputs = new ArrayList<>();
        for (int g = 0; g < rules.size(); g++) {
            List<Block> out = new ArrayList<>();
            outputs.add(out);
            boolean mamba = rules.get(g) instanceof MambaRule;
            MambaRule mambaRule = mamba ? (MambaRule) rules.get(g) : null;
            boolean[] fresh = new boolean[allHashes.length];
            int k = firstOutBlock;
            for (; k < allHashes.length && a.anonymous[g] > (mamba ? 1 : 0); k++) {
                boolean kept = !mamba || mambaRule.keeps(k, a.promptTokens);
                if (kept && !cached.get(g).containsKey(allHashes[k])) {
                    Block b = new Block(g, allHashes[k], allDigests == null ? null : allDigests[k]);
                    cached.get(g).put(b.hash, b);
                    resident++;
                    b.refs = 1;
                    pinned++;
                    a.anonymous[g]--;
                    anonymous--;
                    out.add(b);
                    fresh[k] = true;
                } else if (!mamba) {
                    a.anonymous[g]--;
                    anonymous--;
                }
                if (mamba && (kept ? fresh[k] : true)) {
                    emitStored(g, allHashes, allDigests, k, fresh[k] ? k + 1 : k, k, k + 1, allTokens, cacheSalt);
                }
            }
            if (!mamba) {
                storeRuns(g, allHashes, allDigests, allTokens, firstOutBlock, k, fresh, cacheSalt);
            }
            anonymous -= a.anonymous[g];
            a.anonymous[g] = 0;
        }
        for (int g = 0; g < rules.size(); g++) {
            List<Block> out = outputs.get(g);
            for (int i = out.size() - 1; i >= 0; i--) {
                unpin(out.get(i));
            }
            for (int i = a.held[g].length - 1; i >= 0; i--) {
                if (a.held[g][i] != null) {
                    unpin(a.held[g][i]);
                    a.held[g][i] = null;
                }
            }
        }
    }

    @Override
    public boolean clear() {
        if (pinned > 0 || anonymous > 0) {
            return false;
        }
        cached.forEach(Map::clear);
        evictable.clear();
        resident = 0;
        events.add(new KvEvent.AllBlocksCleared());
        return true;
    }

    private void pin(Block b) {
        if (b.refs == 0) {
            evictable.remove(b);
            pinned++;
        }
        b.refs++;
    }

    private void unpin(Block b) {
        b.refs--;
        if (b.refs == 0) {
            pinned--;
            evictable.add(b);
        }
    }

    private void evictOne() {
        Iterator<Block> it = evictable.iterator();
        Block victim = it.next();
        it.remove();
        cached.get(victim.group).remove(victim.hash);
        resident--;
        events.add(new KvEvent.BlockRemoved(new long[] {victim.hash}, Medium.GPU,
                victim.digest == null ? null : new byte[][] {victim.digest}, tags[victim.group]));
    }

    private int free() {
        return capacityBlocks - resident - anonymous;
    }

    @Override
    public int capacityBlocks() {
        return capacityBlocks;
    }

    @Override
    public int blockSize() {
        return blockSize;
    }

    @Override
    public int usedBlocks() {
        return pinned + anonymous;
    }

    @Override
    public int residentBlocks() {
        return resident;
    }

    @Override
    public int evictableBlocks() {
        return evictable.size();
    }

    @Override
    public int offloadedBlocks() {
        return 0;
    }

    @Override
    public boolean isResident(long hash) {
        for (Map<Long, Block> m : cached) {
            if (m.containsKey(hash)) {
                return true;
            }
        }
        return false;
    }

    /** Whether group {@code group} holds {@code hash} cached. */
    public boolean isResident(int group, long hash) {
        return cached.get(group).containsKey(hash);
    }

    /** Cached blocks of group {@code group}, pinned or not. */
    public int residentBlocks(int group) {
        return cached.get(group).size();
    }

    @Override
    public long queriedTokens() {
        return queriedTokens;
    }

    @Override
    public long hitTokens() {
        return hitTokens;
    }

    @Override
    public long offloadHitTokens() {
        return 0;
    }

    /** The blocks one running request holds in every group. */
    public static final class Lease implements KvPool.Lease {
        final int cachedTokens;
        final int promptTokens;
        /** Per group, the cached blocks held by prompt block index (null = none). */
        final Block[][] held;
        /** Per group, blocks below this index were already released by {@link #progress}. */
        final int[] freedBelow;
        final int[] anonymous;
        boolean released;

        Lease(int cachedTokens, int promptTokens, int groups, int fullBlocks) {
            this.cachedTokens = cachedTokens;
            this.promptTokens = promptTokens;
            this.held = new Block[groups][fullBlocks];
            this.freedBelow = new int[groups];
            this.anonymous = new int[groups];
        }

        @Override
        public int cachedTokens() {
            return cachedTokens;
        }

        @Override
        public int offloadedTokens() {
            return 0;
        }

        @Override
        public int blocks() {
            int n = 0;
            for (int g = 0; g < held.length; g++) {
                n += anonymous[g];
                for (Block b : held[g]) {
                    if (b != null) {
                        n++;
                    }
                }
            }
            return n;
        }
    }

    static final class Block {
        final int group;
        final long hash;
        final byte[] digest;
        int refs;

        Block(int group, long hash, byte[] digest) {
            this.group = group;
            this.hash = hash;
            this.digest = digest;
        }
    }
}
