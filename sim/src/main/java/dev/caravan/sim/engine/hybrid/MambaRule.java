package dev.caravan.sim.engine.hybrid;

import java.util.function.IntPredicate;

/**
 * A Mamba (linear-attention) group in vLLM's "align" cache mode: block {@code i} holds the recurrent state after
 * {@code (i+1)*blockSize} tokens, and that one state is all a hit at that length needs. The lookup takes the latest
 * held state at or before {@code maxLength}.
 *
 * <p>{@code retention} thins which states are cached, as vLLM's {@code prefix_cache_retention_interval} of
 * {@code retention * blockSize} tokens: 1 keeps every block boundary; R &gt; 1 keeps boundaries at multiples of R
 * blocks; 0 keeps none of those. The replay boundary (the state a repeat of the same prompt would resume from) is
 * always kept ({@link #keeps}).
 */
public record MambaRule(int blockSize, int retention) implements GroupRule {

    /** Every block boundary's state is cached. */
    public static final int DENSE = 1;

    public MambaRule {
        if (blockSize < 1) {
            throw new IllegalArgumentException("blockSize must be >= 1, was " + blockSize);
        }
        if (retention < 0) {
            throw new IllegalArgumentException("Mamba retention must be >= 0 blocks, was " + retention);
        }
    }

    @Override
    public String kind() {
        return "mamba";
    }

    @Override
    public int longestHit(IntPredicate held, int maxLength) {
        for (int i = maxLength / blockSize - 1; i >= 0; i--) {
            if (held.test(i)) {
                return (i + 1) * blockSize;
            }
        }
        return 0;
    }

    /** Only the state after the last computed token is needed to go on. */
    @Override
    public int skippedTokens(int computedTokens) {
        return Math.max(0, computedTokens - 1);
    }

    /**
     * Whether the state at the end of block {@code block} is cached, for a request of {@code promptTokens}: at every
     * R-th boundary, and at the replay boundary (the last block boundary before the prompt's last token).
     */
    public boolean keeps(int block, int promptTokens) {
        if (retention == DENSE) {
            return true;
        }
        if (retention > 0 && (block + 1) % retention == 0) {
            return true;
        }
        return block == (promptTokens - 1) / blockSize - 1;
    }
}
