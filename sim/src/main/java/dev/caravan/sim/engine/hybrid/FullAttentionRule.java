package dev.caravan.sim.engine.hybrid;

import java.util.function.IntPredicate;

/** Full attention: the hit is the run of held blocks from block 0 (a missing block ends the chain). */
public record FullAttentionRule(int blockSize) implements GroupRule {

    public FullAttentionRule {
        if (blockSize < 1) {
            throw new IllegalArgumentException("blockSize must be >= 1, was " + blockSize);
        }
    }

    @Override
    public String kind() {
        return "full_attention";
    }

    @Override
    public int longestHit(IntPredicate held, int maxLength) {
        int max = maxLength / blockSize;
        int n = 0;
        while (n < max && held.test(n)) {
            n++;
        }
        return n * blockSize;
    }

    @Override
    public int skippedTokens(int computedTokens) {
        return 0;
    }

    @Override
    public boolean isFullAttention() {
        return true;
    }
}
