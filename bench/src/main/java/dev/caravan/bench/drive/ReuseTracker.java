package dev.caravan.bench.drive;

import java.util.List;

import dev.caravan.bench.ceiling.Belady;
import dev.caravan.bench.ceiling.BlockSequence;
import dev.caravan.bench.ceiling.PooledLru;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ideal prefix reuse of a workload: how many tokens of each prompt an infinite cache shared by the whole fleet would
 * serve, i.e. the longest run of leading KV blocks that some earlier prompt (or earlier prompt plus its answer) already
 * contained. It is the denominator of the "reuse hit" figure and of G_waste: tokens that were computed before somewhere
 * and are computed again are the waste a router can avoid.
 *
 * <p>Blocks are the engine's: {@code blockTokens} tokens of {@code charsPerToken} characters (workload text is ASCII,
 * so a block is a fixed number of characters), named by a chained 64-bit hash of their characters and all before them
 * (the same prefix-chaining as vLLM's block hashes, without the cost of SHA-256). Like vLLM, at least one prompt token is
 * always recomputed, so a prompt of exactly k blocks can reuse at most k − 1. Thread-safe (synchronised: prompts are
 * admitted by the sender thread, answers remembered by the client's event loop).
 *
 * <p>It also keeps the order in which prompts and answers came as a {@link BlockSequence}, from which
 * {@link #applyCeilings} computes the finite-capacity references after the run: pooled LRU and Belady.
 */
public final class ReuseTracker {

    private static final Logger LOG = LoggerFactory.getLogger(ReuseTracker.class);

    private final int blockChars;
    private final int blockTokens;
    private final int charsPerToken;
    private final BlockSequence sequence = new BlockSequence();

    public ReuseTracker(int blockTokens, int charsPerToken) {
        this.blockTokens = blockTokens;
        this.charsPerToken = charsPerToken;
        this.blockChars = blockTokens * charsPerToken;
    }

    /**
     * Records a prompt and returns its reusable tokens: the leading full blocks seen before, capped at
     * {@code (tokens − 1) / blockTokens} blocks.
     */
    public synchronized int admit(String text) {
        int tokens = (text.length() + charsPerToken - 1) / charsPerToken;
        int maxBlocks = tokens == 0 ? 0 : (tokens - 1) / blockTokens;
        int full = text.length() / blockChars;
        long h = 0x6A09E667F3BCC908L;
        int reused = 0;
        boolean matching = true;
        int block = -1;
        for (int b = 0; b < full; b++) {
            h = chain(h, text, b * blockChars);
            int known = sequence.blocks();
            block = sequence.block(h, block);
            if (matching && b < maxBlocks && block < known) {
                reused++;
            } else {
                matching = false;
            }
        }
        sequence.admit(block, maxBlocks);
        return reused * blockTokens;
    }

    /** Records the blocks of a prompt followed by its answer, so that a later turn extending it can reuse them. */
    public synchronized void remember(String text) {
        int full = text.length() / blockChars;
        long h = 0x6A09E667F3BCC908L;
        int block = -1;
        for (int b = 0; b < full; b++) {
            h = chain(h, text, b * blockChars);
            block = sequence.block(h, block);
        }
        sequence.remember(block);
    }

    /** Distinct blocks seen so far. */
    public synchronized int distinctBlocks() {
        return sequence.blocks();
    }

    /**
     * Sets every record's {@link RequestRecord#pooledLruTokens} and {@link RequestRecord#beladyTokens}: what one cache
     * of {@code capacityBlocks} (the fleet's engines pooled) would have served its prompt under LRU and under optimal
     * eviction, replaying the prompts and answers in the order this tracker saw them. A record's {@code seq} is its
     * prompt's admit order.
     */
    public synchronized void applyCeilings(List<RequestRecord> records, int capacityBlocks) {
        long start = System.nanoTime();
        int[] lru = PooledLru.hits(sequence, capacityBlocks);
        long lruDone = System.nanoTime();
        int[] belady = Belady.hits(sequence, capacityBlocks);
        LOG.info("ceilings over {} events, {} distinct blocks, capacity {} blocks: pooled LRU {} ms, Belady {} ms",
                sequence.events(), sequence.blocks(), capacityBlocks, (lruDone - start) / 1_000_000,
                (System.nanoTime() - lruDone) / 1_000_000);
        for (RequestRecord r : records) {
            if (r.seq < lru.length) {
                r.pooledLruTokens = lru[(int) r.seq] * blockTokens;
                r.beladyTokens = belady[(int) r.seq] * blockTokens;
            }
        }
    }

    private long chain(long parent, String text, int from) {
        long h = parent * 0x100000001B3L + 0x9E3779B97F4A7C15L;
        for (int i = from; i < from + blockChars; i++) {
            h = (h ^ text.charAt(i)) * 0x100000001B3L;
        }
        h ^= h >>> 33;
        h *= 0xFF51AFD7ED558CCDL;
        h ^= h >>> 33;
        return h;
    }
}
