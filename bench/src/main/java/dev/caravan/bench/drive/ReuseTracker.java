package dev.caravan.bench.drive;

import java.util.List;

import dev.caravan.bench.ceiling.Belady;
import dev.caravan.bench.ceiling.BlockSequence;
import dev.caravan.bench.ceiling.PooledLru;
import dev.caravan.bench.workload.BenchRequest;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ideal prefix reuse of a workload: how many tokens of each prompt an infinite cache shared by the whole fleet would
 * serve, i.e. the longest run of leading KV blocks that some earlier prompt (or earlier prompt plus its answer) already
 * contained. It is the denominator of the "reuse hit" figure and of G_waste: tokens that were computed before somewhere
 * and are computed again are the waste a router can avoid.
 *
 * <p>Blocks are the engine's: {@code blockTokens} of the engines' own tokens ({@link EngineTokens}: their tokenizer and
 * chat template), named by a chained 64-bit hash of their token ids and all before them (the same prefix-chaining as
 * vLLM's block hashes, without the cost of SHA-256). Counting in the engines' tokens keeps every figure derived from
 * the tracker in the units of the {@code prompt_tokens} and {@code cached_tokens} the engines report, whatever their
 * tokenizer. Like vLLM, at least one prompt token is always recomputed, so a prompt of exactly k blocks can reuse at
 * most k − 1. Thread-safe (synchronised: prompts are admitted by the sender thread, answers remembered by the client's
 * event loop).
 *
 * <p>It also keeps the order in which prompts and answers came as a {@link BlockSequence}, from which
 * {@link #applyCeilings} computes the finite-capacity references after the run: pooled LRU and Belady.
 */
public final class ReuseTracker {

    private static final Logger LOG = LoggerFactory.getLogger(ReuseTracker.class);

    private final int blockTokens;
    private final EngineTokens tokens;
    private final BlockSequence sequence = new BlockSequence();

    public ReuseTracker(int blockTokens, EngineTokens tokens) {
        if (blockTokens < 1) {
            throw new IllegalArgumentException("blockTokens must be >= 1, was " + blockTokens);
        }
        this.blockTokens = blockTokens;
        this.tokens = tokens;
    }

    /** Records a request's prompt, in the engines' tokens, and returns its reusable tokens (see {@link #admit(int[])}). */
    public int admit(BenchRequest request) {
        return admit(tokens.prompt(request));
    }

    /** Records a request's prompt followed by its answer (see {@link #remember(int[])}). */
    public void remember(BenchRequest request, String answer) {
        remember(tokens.promptAndAnswer(request, answer));
    }

    /**
     * Records a prompt's token ids and returns its reusable tokens: the leading full blocks seen before, capped at
     * {@code (tokens − 1) / blockTokens} blocks.
     */
    public synchronized int admit(int[] ids) {
        int maxBlocks = ids.length == 0 ? 0 : (ids.length - 1) / blockTokens;
        int full = ids.length / blockTokens;
        long h = 0x6A09E667F3BCC908L;
        int reused = 0;
        boolean matching = true;
        int block = -1;
        for (int b = 0; b < full; b++) {
            h = chain(h, ids, b * blockTokens);
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

    /** Records the token ids of a prompt followed by its answer, so that a later turn extending them can reuse them. */
    public synchronized void remember(int[] ids) {
        int full = ids.length / blockTokens;
        long h = 0x6A09E667F3BCC908L;
        int block = -1;
        for (int b = 0; b < full; b++) {
            h = chain(h, ids, b * blockTokens);
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

    private long chain(long parent, int[] ids, int from) {
        long h = parent * 0x100000001B3L + 0x9E3779B97F4A7C15L;
        for (int i = from; i < from + blockTokens; i++) {
            h = (h ^ (ids[i] & 0xFFFFFFFFL)) * 0x100000001B3L;
        }
        h ^= h >>> 33;
        h *= 0xFF51AFD7ED558CCDL;
        h ^= h >>> 33;
        return h;
    }
}
