package dev.caravan.sim.engine.hybrid;

import java.util.function.IntPredicate;

/**
 * Sliding-window attention of {@code window} tokens. The token after a hit of L tokens attends to the last
 * {@code window - 1} of them, so a hit needs the {@code ceil((window-1)/blockSize)} blocks ending at L, or every block
 * from 0 when L is shorter than that. The lookup scans from the longest candidate down and takes the first run of
 * that many held blocks; without one, the run of held blocks from block 0.
 */
public record SlidingWindowRule(int blockSize, int window) implements GroupRule {

    public SlidingWindowRule {
        if (blockSize < 1) {
            throw new IllegalArgumentException("blockSize must be >= 1, was " + blockSize);
        }
        if (window < 2) {
            throw new IllegalArgumentException("sliding window must be >= 2 tokens, was " + window);
        }
    }

    /** Held blocks a hit must end with. */
    public int contiguousBlocks() {
        return (window - 1 + blockSize - 1) / blockSize;
    }

    @Override
    public String kind() {
        return "sliding_window";
    }

    @Override
    public Integer slidingWindow() {
        return window;
    }

    @Override
    public int longestHit(IntPredicate held, int maxLength) {
        int need = contiguousBlocks();
        int run = 0;
        for (int i = maxLength / blockSize - 1; i >= 0; i--) {
            if (!held.test(i)) {
                run = 0;
                continue;
            }
            run++;
            if (run >= need) {
                return (i + run) * blockSize;
            }
        }
        return run * blockSize;
    }

    @Override
    public int skippedTokens(int computedTokens) {
        return Math.max(0, computedTokens - window + 1);
    }
}
