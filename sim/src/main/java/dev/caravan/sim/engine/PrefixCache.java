package dev.caravan.sim.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

import dev.caravan.sim.kv.KvEvent;
import dev.caravan.sim.kv.KvEvent.Medium;

/**
 * A vLLM-like paged KV pool with prefix caching, in blocks of {@code blockSize} tokens, and an optional CPU offload
 * tier.
 *
 * <p>The GPU pool has {@code capacityBlocks}. Every block is in one of three states:
 * <ul>
 *   <li><b>cached and pinned</b>: full block with a hash, referenced by at least one running request;</li>
 *   <li><b>cached and evictable</b>: full block with a hash that no request references; it still serves prefix hits,
 *       and sits in an LRU queue from which it is evicted (one {@code BlockRemoved} each) when room is needed;</li>
 *   <li><b>anonymous</b>: reserved by a running request for its partial last prompt block and its output tokens.</li>
 * </ul>
 * So live requests' KV takes room from the cache exactly as in a real engine: usage is (pinned + anonymous) / capacity,
 * and cached prefixes live in whatever is left. A request's blocks are released in reverse order, so a prefix's tail is
 * evicted before its head (vLLM's free-queue order). Identical content is never stored twice: a resident block with the
 * same hash is reused (pinned) instead.
 *
 * <p><b>CPU tier</b> ({@code offloadCapacityBlocks > 0}): a block evicted from the GPU moves to an LRU CPU tier of that
 * many blocks ({@code BlockRemoved} GPU, then {@code BlockStored} CPU unless already there; a full tier first drops its
 * least recently used block, {@code BlockRemoved} CPU). A request's prefix hit extends past the GPU-resident blocks into
 * consecutive CPU-resident ones: those are loaded back (fresh GPU blocks, {@code BlockStored} GPU; the CPU copy
 * stays) and count as cached tokens, reported apart as {@link Allocation#offloadedTokens()} because loading them costs
 * time ({@link TimeModel}).
 *
 * <p>Events are appended to the list passed at construction; the owner drains them once per scheduler step.
 * Not thread-safe: one engine's scheduler thread owns it.
 */
public final class PrefixCache implements KvPool {

    private final int blockSize;
    private final int capacityBlocks;
    private final List<KvEvent> events;
    private final Map<Long, Block> resident = new HashMap<>();
    private final LinkedHashSet<Block> evictable = new LinkedHashSet<>();
    private final OffloadTier cpu;
    private int anonymous;
    private int pinned;
    private long queriedTokens;
    private long hitTokens;
    private long offloadHitTokens;

    public PrefixCache(int blockSize, int capacityBlocks, List<KvEvent> events) {
        this(blockSize, capacityBlocks, 0, events);
    }

    /**
     * @param offloadCapacityBlocks blocks of the CPU tier; 0 = no tier
     */
    public PrefixCache(int blockSize, int capacityBlocks, int offloadCapacityBlocks, List<KvEvent> events) {
        if (blockSize < 1) {
            throw new IllegalArgumentException("blockSize must be >= 1, was " + blockSize);
        }
        if (capacityBlocks < 1) {
            throw new IllegalArgumentException("capacityBlocks must be >= 1, was " + capacityBlocks);
        }
        if (offloadCapacityBlocks < 0) {
            throw new IllegalArgumentException("offloadCapacityBlocks must be >= 0, was " + offloadCapacityBlocks);
        }
        this.blockSize = blockSize;
        this.capacityBlocks = capacityBlocks;
        this.events = events;
        this.cpu = new OffloadTier(offloadCapacityBlocks, blockSize, events);
    }

    /** Number of leading blocks of {@code hashes} (at most {@code maxBlocks}) resident on the GPU now. No side effects. */
    public int matchPrefix(long[] hashes, int maxBlocks) {
        int n = Math.min(maxBlocks, hashes.length);
        int hit = 0;
        while (hit < n && resident.containsKey(hashes[hit])) {
            hit++;
        }
        return hit;
    }

    /**
     * Reserves {@code totalBlocks} blocks for a request whose full prompt blocks have {@code hashes}, reusing the
     * longest cached prefix (GPU, then CPU; at most {@code maxHitBlocks} of them count as a hit) and evicting LRU blocks
     * for the rest.
     *
     * @param digests   the full digests behind {@code hashes} (carried by the events), or null
     * @param tokens    the prompt's token ids (the source of {@code BlockStored.token_ids})
     * @param cacheSalt the request's cache_salt (reported with block 0), or null
     * @return the allocation, or null when the pool cannot make room now (the request keeps waiting)
     */
    @Override
    public Allocation allocate(long[] hashes, byte[][] digests, int[] tokens, int maxHitBlocks, int totalBlocks,
                               String cacheSalt) {
        int full = hashes.length;
        if (digests != null && digests.length != full) {
            throw new IllegalArgumentException(digests.length + " digests for " + full + " block hashes");
        }
        if (totalBlocks < full) {
            throw new IllegalArgumentException("totalBlocks " + totalBlocks + " < full prompt blocks " + full);
        }
        int limit = Math.min(maxHitBlocks, full);
        int hit = 0;
        int loaded = 0;
        while (hit < limit && (resident.containsKey(hashes[hit]) || cpu.contains(hashes[hit]))) {
            if (!resident.containsKey(hashes[hit])) {
                loaded++;
            }
            hit++;
        }
        int reusedEvictable = 0;
        int reused = 0;
        for (int i = 0; i < full; i++) {
            Block b = resident.get(hashes[i]);
            if (b != null) {
                reused++;
                if (b.refs == 0) {
                    reusedEvictable++;
                }
            }
        }
        int needNew = totalBlocks - reused;
        if (needNew > free() + evictable.size() - reusedEvictable) {
            return null;
        }
        Allocation a = new Allocation(hit * blockSize, loaded * blockSize);
        Block[] held = new Block[full];
        for (int i = 0; i < full; i++) {
            Block b = resident.get(hashes[i]);
            if (b != null) {
                pin(b);
                held[i] = b;
            }
        }
        while (free() < needNew) {
            evictOne();
        }
        for (int i = 0; i < hit; i++) {
            cpu.touch(hashes[i]);
        }
        int runStart = -1;
        for (int i = 0; i <= full; i++) {
            boolean fresh = i < full && held[i] == null;
            if (fresh) {
                Block b = newBlock(hashes, digests, tokens, i);
                b.refs = 1;
                pinned++;
                resident.put(b.hash, b);
                held[i] = b;
                if (runStart < 0) {
                    runStart = i;
                }
            } else if (runStart >= 0) {
                emitStored(hashes, digests, runStart, i, tokens, cacheSalt);
                runStart = -1;
            }
        }
        a.blocks.addAll(Arrays.asList(held));
        a.anonymous = totalBlocks - full;
        anonymous += a.anonymous;
        queriedTokens += tokens.length;
        hitTokens += a.cachedTokens;
        offloadHitTokens += a.offloadedTokens;
        return a;
    }

    /** {@link #allocate(long[], byte[][], int[], int, int, String)} without digests or a salt. */
    public Allocation allocate(long[] hashes, int[] tokens, int maxHitBlocks, int totalBlocks) {
        return allocate(hashes, null, tokens, maxHitBlocks, totalBlocks, null);
    }

    /**
     * Releases a finished (or aborted) request. {@code allHashes} are the hashes of every full block of
     * {@code allTokens} (prompt followed by the generated tokens); those from {@code firstOutBlock} on (the blocks
     * the output completed) become cached blocks in place of the anonymous blocks reserved for them. Then every block
     * is unpinned, last block first. {@code allDigests} are the digests behind {@code allHashes}, or null.
     */
    @Override
    public void release(Lease lease, long[] allHashes, byte[][] allDigests, int[] allTokens, int firstOutBlock,
                        String cacheSalt) {
        Allocation a = (Allocation) lease;
        if (a.released) {
            return;
        }
        a.released = true;
        int runStart = -1;
        int k = firstOutBlock;
        for (; k < allHashes.length && a.anonymous > 0; k++) {
            a.anonymous--;
            anonymous--;
            if (resident.containsKey(allHashes[k])) {
                if (runStart >= 0) {
                    emitStored(allHashes, allDigests, runStart, k, allTokens, cacheSalt);
                    runStart = -1;
                }
                continue;
            }
            Block b = newBlock(allHashes, allDigests, allTokens, k);
            b.refs = 1;
            pinned++;
            resident.put(b.hash, b);
            a.blocks.add(b);
            if (runStart < 0) {
                runStart = k;
            }
        }
        if (runStart >= 0) {
            emitStored(allHashes, allDigests, runStart, k, allTokens, cacheSalt);
        }
        anonymous -= a.anonymous;
        a.anonymous = 0;
        for (int i = a.blocks.size() - 1; i >= 0; i--) {
            Block b = a.blocks.get(i);
            b.refs--;
            if (b.refs == 0) {
                pinned--;
                evictable.add(b);
            }
        }
    }

    /** {@link #release(Allocation, long[], byte[][], int[], int, String)} without digests or a salt. */
    public void release(Allocation a, long[] allHashes, int[] allTokens, int firstOutBlock) {
        release(a, allHashes, null, allTokens, firstOutBlock, null);
    }

    /** Drops every cached block of both tiers; refused (false) while any request holds blocks, as SGLang's flush_cache. */
    @Override
    public boolean clear() {
        if (pinned > 0 || anonymous > 0) {
            return false;
        }
        resident.clear();
        evictable.clear();
        cpu.clear();
        events.add(new KvEvent.AllBlocksCleared());
        return true;
    }

    private Block newBlock(long[] hashes, byte[][] digests, int[] tokens, int index) {
        Block b = new Block(hashes[index]);
        b.digest = digests == null ? null : digests[index];
        if (cpu.enabled()) {                                      // kept only for the CPU tier's events
            b.parent = index == 0 ? null : hashes[index - 1];
            b.parentDigest = digests == null || index == 0 ? null : digests[index - 1];
            b.tokens = Arrays.copyOfRange(tokens, index * blockSize, (index + 1) * blockSize);
        }
        return b;
    }

    private void pin(Block b) {
        if (b.refs == 0) {
            evictable.remove(b);
            pinned++;
        }
        b.refs++;
    }

    private void evictOne() {
        Iterator<Block> it = evictable.iterator();
        Block victim = it.next();
        it.remove();
        resident.remove(victim.hash);
        events.add(new KvEvent.BlockRemoved(new long[] {victim.hash}, Medium.GPU,
                victim.digest == null ? null : new byte[][] {victim.digest}));
        if (cpu.enabled()) {
            cpu.offload(victim.hash, victim.parent, victim.tokens, victim.digest, victim.parentDigest);
        }
    }

    private void emitStored(long[] hashes, byte[][] digests, int from, int to, int[] tokens, String cacheSalt) {
        long[] run = Arrays.copyOfRange(hashes, from, to);
        Long parent = from == 0 ? null : hashes[from - 1];
        int[] toks = Arrays.copyOfRange(tokens, from * blockSize, to * blockSize);
        events.add(new KvEvent.BlockStored(run, parent, toks, blockSize, Medium.GPU, from == 0 ? cacheSalt : null,
                digests == null ? null : Arrays.copyOfRange(digests, from, to),
                digests == null || from == 0 ? null : digests[from - 1]));
    }

    private int free() {
        return capacityBlocks - resident.size() - anonymous;
    }

    @Override
    public int capacityBlocks() {
        return capacityBlocks;
    }

    @Override
    public int blockSize() {
        return blockSize;
    }

    /** Blocks held by live requests (pinned cached + anonymous). */
    @Override
    public int usedBlocks() {
        return pinned + anonymous;
    }

    /** Fraction of the pool held by live requests, vLLM's {@code kv_cache_usage_perc}. */
    @Override
    public double usage() {
        return (double) usedBlocks() / capacityBlocks;
    }

    /** Blocks holding a cached hash on the GPU, pinned or not. */
    @Override
    public int residentBlocks() {
        return resident.size();
    }

    @Override
    public int evictableBlocks() {
        return evictable.size();
    }

    /** Blocks in the CPU tier. */
    @Override
    public int offloadedBlocks() {
        return cpu.size();
    }

    @Override
    public boolean isResident(long hash) {
        return resident.containsKey(hash);
    }

    public boolean isOffloaded(long hash) {
        return cpu.contains(hash);
    }

    /** Prompt tokens looked up so far ({@code vllm:prefix_cache_queries_total}). */
    @Override
    public long queriedTokens() {
        return queriedTokens;
    }

    /** Prompt tokens found cached so far, GPU and CPU tier ({@code vllm:prefix_cache_hits_total}). */
    @Override
    public long hitTokens() {
        return hitTokens;
    }

    /** Of {@link #hitTokens()}, those loaded from the CPU tier. */
    @Override
    public long offloadHitTokens() {
        return offloadHitTokens;
    }

    /** The blocks one running request holds. */
    public static final class Allocation implements Lease {
        final List<Block> blocks = new ArrayList<>();
        final int cachedTokens;
        final int offloadedTokens;
        int anonymous;
        boolean released;

        Allocation(int cachedTokens, int offloadedTokens) {
            this.cachedTokens = cachedTokens;
            this.offloadedTokens = offloadedTokens;
        }

        /** Prompt tokens served from the cache when the request was admitted (both tiers). */
        @Override
        public int cachedTokens() {
            return cachedTokens;
        }

        /** Of {@link #cachedTokens()}, those loaded from the CPU tier. */
        @Override
        public int offloadedTokens() {
            return offloadedTokens;
        }

        /** Blocks this request holds. */
        @Override
        public int blocks() {
            return blocks.size() + anonymous;
        }
    }

    static final class Block {
        final long hash;
        int refs;
        byte[] digest;
        Long parent;
        byte[] parentDigest;
        int[] tokens;

        Block(long hash) {
            this.hash = hash;
        }
    }
}
