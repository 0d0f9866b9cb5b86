package dev.caravan.sim.engine.hybrid;

import java.util.ArrayList;
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
 * <p>Stores follow {@link GroupStores}: a Mamba prompt store names one state but carries the tokens since the hit; a
 * state left out by retention gives a store naming no block. A block already cached in its group is reused, not
 * stored twice. No CPU tier. Not thread-safe: one engine's scheduler thread owns it.
 */
public final class HybridPrefixCache implements KvPool {

    private final int blockSize;
    private final int capacityBlocks;
    private final List<GroupRule> rules;
    private final KvGroup[] tags;
    private final List<Map<Long, PooledBlock>> cached = new ArrayList<>();
    private final LinkedHashSet<PooledBlock> evictable = new LinkedHashSet<>();
    private final List<KvEvent> events;
    private final GroupStores stores;
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
        this.stores = new GroupStores(blockSize, tags, events);
    }

    @Override
    public HybridLease allocate(long[] hashes, byte[][] digests, int[] tokens, int maxHitBlocks, int totalBlocks,
                                String cacheSalt) {
        int full = hashes.length;
        if (totalBlocks < full) {
            throw new IllegalArgumentException("totalBlocks " + totalBlocks + " < full prompt blocks " + full);
        }
        int groups = rules.size();
        List<IntPredicate> held = new ArrayList<>(groups);
        for (int g = 0; g < groups; g++) {
            Map<Long, PooledBlock> m = cached.get(g);
            held.add(i -> i < full && m.containsKey(hashes[i]));
        }
        int hit = HybridHit.longest(rules, held, Math.min(maxHitBlocks, full) * blockSize);
        int h = hit / blockSize;

        HybridLease a = new HybridLease(hit, tokens.length, groups, full);
        boolean[][] fresh = new boolean[groups][full];
        int needNew = 0;
        LinkedHashSet<PooledBlock> reused = new LinkedHashSet<>();
        for (int g = 0; g < groups; g++) {
            GroupRule rule = rules.get(g);
            Map<Long, PooledBlock> m = cached.get(g);
            for (int i = rule.skippedTokens(hit) / blockSize; i < h; i++) {
                a.held[g][i] = m.get(hashes[i]);
            }
            for (int i = h; i < full; i++) {
                if (stores(rule, i, full, tokens.length)) {
                    a.held[g][i] = m.get(hashes[i]);
                    fresh[g][i] = a.held[g][i] == null;
                    needNew += fresh[g][i] ? 1 : 0;
                }
            }
            for (PooledBlock b : a.held[g]) {
                if (b != null) {
                    reused.add(b);
                }
            }
            a.anonymous[g] = rule instanceof MambaRule ? 1 + totalBlocks - full : totalBlocks - full;
            needNew += a.anonymous[g];
        }
        int reusedEvictable = (int) reused.stream().filter(b -> b.refs == 0).count();
        if (needNew > free() + evictable.size() - reusedEvictable) {
            return null;
        }
        reused.forEach(this::pin);
        while (free() < needNew) {
            evictOne();
        }
        for (int g = 0; g < groups; g++) {
            for (int i = h; i < full; i++) {
                if (fresh[g][i]) {
                    a.held[g][i] = cache(g, hashes[i], digests == null ? null : digests[i]);
                }
            }
            anonymous += a.anonymous[g];
            if (rules.get(g) instanceof MambaRule) {
                if (full > h && (fresh[g][full - 1] || a.held[g][full - 1] == null)) {
                    int named = fresh[g][full - 1] ? full - 1 : full;
                    stores.span(g, hashes, digests, named, full, h, full, tokens, cacheSalt);
                }
            } else {
                stores.runs(g, hashes, digests, tokens, h, full, fresh[g], cacheSalt);
            }
        }
        queriedTokens += tokens.length;
        hitTokens += hit;
        return a;
    }

    /**
     * Whether group {@code rule} keeps prompt block {@code i} past the hit: every block, or Mamba's state at the
     * prompt's last block boundary (where the prefill's aligned chunk ends) when its retention keeps it.
     */
    private static boolean stores(GroupRule rule, int i, int full, int promptTokens) {
        if (rule instanceof MambaRule mamba) {
            return i == full - 1 && mamba.keeps(i, promptTokens);
        }
        return true;
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

    @Override
    public void progress(KvPool.Lease lease, int computedTokens) {
        HybridLease a = (HybridLease) lease;
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
        HybridLease a = (HybridLease) lease;
        if (a.released) {
            return;
        }
        a.released = true;
        List<List<PooledBlock>> outputs = new ArrayList<>();
        for (int g = 0; g < rules.size(); g++) {
            outputs.add(rules.get(g) instanceof MambaRule mamba
                    ? storeMambaOutputs(g, mamba, a, allHashes, allDigests, allTokens, firstOutBlock, cacheSalt)
                    : storeOutputs(g, a, allHashes, allDigests, allTokens, firstOutBlock, cacheSalt));
            anonymous -= a.anonymous[g];
            a.anonymous[g] = 0;
        }
        for (int g = 0; g < rules.size(); g++) {
            List<PooledBlock> out = outputs.get(g);
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

    /** The blocks the output completed, cached in place of the anonymous blocks reserved for them. */
    private List<PooledBlock> storeOutputs(int g, HybridLease a, long[] allHashes, byte[][] allDigests,
                                           int[] allTokens, int firstOutBlock, String cacheSalt) {
        List<PooledBlock> out = new ArrayList<>();
        boolean[] fresh = new boolean[allHashes.length];
        int k = firstOutBlock;
        for (; k < allHashes.length && a.anonymous[g] > 0; k++) {
            a.anonymous[g]--;
            anonymous--;
            if (!cached.get(g).containsKey(allHashes[k])) {
                out.add(cache(g, allHashes[k], allDigests == null ? null : allDigests[k]));
                fresh[k] = true;
            }
        }
        stores.runs(g, allHashes, allDigests, allTokens, firstOutBlock, k, fresh, cacheSalt);
        return out;
    }

    /**
     * The states at the block boundaries the output crossed, one store each as vLLM publishes them step by step; a
     * state retention leaves out gives a store naming no block.
     */
    private List<PooledBlock> storeMambaOutputs(int g, MambaRule rule, HybridLease a, long[] allHashes,
                                                byte[][] allDigests, int[] allTokens, int firstOutBlock,
                                                String cacheSalt) {
        List<PooledBlock> out = new ArrayList<>();
        for (int k = firstOutBlock; k < allHashes.length && a.anonymous[g] > 1; k++) {
            if (!rule.keeps(k, a.promptTokens)) {
                stores.span(g, allHashes, allDigests, k, k, k, k + 1, allTokens, cacheSalt);
            } else if (!cached.get(g).containsKey(allHashes[k])) {
                a.anonymous[g]--;
                anonymous--;
                out.add(cache(g, allHashes[k], allDigests == null ? null : allDigests[k]));
                stores.span(g, allHashes, allDigests, k, k + 1, k, k + 1, allTokens, cacheSalt);
            }
        }
        return out;
    }

    /** A new cached block of group {@code g}, pinned by the caller's request. */
    private PooledBlock cache(int g, long hash, byte[] digest) {
        PooledBlock b = new PooledBlock(g, hash, digest);
        b.refs = 1;
        pinned++;
        resident++;
        cached.get(g).put(hash, b);
        return b;
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

    private void pin(PooledBlock b) {
        if (b.refs == 0) {
            evictable.remove(b);
            pinned++;
        }
        b.refs++;
    }

    private void unpin(PooledBlock b) {
        b.refs--;
        if (b.refs == 0) {
            pinned--;
            evictable.add(b);
        }
    }

    private void evictOne() {
        Iterator<PooledBlock> it = evictable.iterator();
        PooledBlock victim = it.next();
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

    /** Cached blocks of group {@code group}, pinned or not. */
    public int residentBlocks(int group) {
        return cached.get(group).size();
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
        return cached.stream().anyMatch(m -> m.containsKey(hash));
    }

    /** Whether group {@code group} holds {@code hash} cached. */
    public boolean isResident(int group, long hash) {
        return cached.get(group).containsKey(hash);
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
}
