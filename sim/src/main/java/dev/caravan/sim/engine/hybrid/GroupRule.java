package dev.caravan.sim.engine.hybrid;

import java.util.function.IntPredicate;

/**
 * The prefix-cache rule of one KV-cache group of a vLLM engine, as its single-type manager applies it: which cached
 * prefix lengths the group can serve, and which of a running request's blocks it no longer needs. One class per layer
 * type; the block pool and the coordinator ({@link HybridHit}) are shared.
 *
 * <p>Block {@code i} of a request covers tokens {@code [i*blockSize, (i+1)*blockSize)}; {@code held.test(i)} says
 * whether the group holds block {@code i}'s hash cached.
 */
public sealed interface GroupRule permits FullAttentionRule, SlidingWindowRule, ChunkedLocalRule, MambaRule {

    /** vLLM's {@code kv_cache_spec_kind} for this group, as published in {@code BlockStored}. */
    String kind();

    /** Tokens per block of this group. */
    int blockSize();

    /**
     * The longest prefix, in tokens, of at most {@code maxLength} that this group can serve from the blocks it holds;
     * a multiple of {@link #blockSize()}, 0 when none.
     */
    int longestHit(IntPredicate held, int maxLength);

    /**
     * Leading tokens whose blocks attention no longer reads once {@code computedTokens} are computed (vLLM's
     * {@code get_num_skipped_tokens}); their whole blocks are freed while the request runs.
     */
    int skippedTokens(int computedTokens);

    /** {@code kv_cache_spec_sliding_window} of the group's events, or null when it has none. */
    default Integer slidingWindow() {
        return null;
    }

    /** Full attention is downward-closed, so the coordinator asks it first and trims it last. */
    default boolean isFullAttention() {
        return false;
    }
}
