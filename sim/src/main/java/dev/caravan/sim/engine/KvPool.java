package dev.caravan.sim.engine;

/**
 * An engine's KV pool with prefix caching, as the scheduler ({@link EngineCore}) uses it: admit a request (reserving
 * its blocks and reporting the cached prefix), follow its progress, release it. {@link PrefixCache} is a single-group
 * pool; {@link dev.caravan.sim.engine.hybrid.HybridPrefixCache} keeps one group per layer type of a hybrid model in
 * one shared pool. Not thread-safe: one engine's scheduler thread owns it.
 */
public interface KvPool {

    /** The blocks one running request holds. */
    interface Lease {

        /** Prompt tokens served from the cache when the request was admitted. */
        int cachedTokens();

        /** Of {@link #cachedTokens()}, those loaded from a CPU tier. */
        int offloadedTokens();

        /** Blocks this request holds now. */
        int blocks();
    }

    /**
     * Reserves {@code totalBlocks} blocks of prompt and output for a request whose full prompt blocks have
     * {@code hashes}, reusing the longest cached prefix (at most {@code maxHitBlocks} blocks of it count as a hit).
     *
     * @param digests   the full digests behind {@code hashes} (carried by the events), or null
     * @param tokens    the prompt's token ids
     * @param cacheSalt the request's cache_salt (reported with block 0), or null
     * @return the lease, or null when the pool cannot make room now (the request keeps waiting)
     */
    Lease allocate(long[] hashes, byte[][] digests, int[] tokens, int maxHitBlocks, int totalBlocks,
                   String cacheSalt);

    /**
     * Blocks a request reserving {@code totalBlocks} per group, {@code fullPromptBlocks} of them full prompt blocks,
     * takes from the pool when nothing is cached: a request above {@link #capacityBlocks()} can never be admitted.
     */
    default int admissionBlocks(int fullPromptBlocks, int totalBlocks) {
        return totalBlocks;
    }

    /**
     * The request has {@code computedTokens} tokens computed (its prompt once prefilled, then one more per generated
     * token): blocks its attention no longer reads are freed (they stay cached until evicted).
     */
    default void progress(Lease lease, int computedTokens) {
    }

    /**
     * Releases a finished (or aborted) request. {@code allHashes} are the hashes of every full block of
     * {@code allTokens} (prompt followed by the generated tokens); those from {@code firstOutBlock} on were completed
     * by the output and become cached too. {@code allDigests} are the digests behind {@code allHashes}, or null.
     */
    void release(Lease lease, long[] allHashes, byte[][] allDigests, int[] allTokens, int firstOutBlock,
                 String cacheSalt);

    /** Drops every cached block; refused (false) while any request holds blocks. */
    boolean clear();

    int capacityBlocks();

    int blockSize();

    /** Blocks held by live requests. */
    int usedBlocks();

    /** Fraction of the pool held by live requests, vLLM's {@code kv_cache_usage_perc}. */
    default double usage() {
        return (double) usedBlocks() / capacityBlocks();
    }

    /** Blocks holding a cached hash, pinned or not (every group). */
    int residentBlocks();

    /** Cached blocks no request references. */
    int evictableBlocks();

    /** Blocks in the CPU tier. */
    int offloadedBlocks();

    /** Whether {@code hash} is cached on the GPU (in any group). */
    boolean isResident(long hash);

    /** Prompt tokens looked up so far ({@code vllm:prefix_cache_queries_total}). */
    long queriedTokens();

    /** Prompt tokens found cached so far ({@code vllm:prefix_cache_hits_total}). */
    long hitTokens();

    /** Of {@link #hitTokens()}, those loaded from the CPU tier. */
    long offloadHitTokens();
}
