package dev.caravan.sim.engine.hybrid;

import java.util.function.IntPredicate;

/**
 * Chunked local attention (Llama 4): a token attends only within its chunk of {@code chunkSize} tokens. For a hit of
 * at most {@code maxLength}, the chunks before the one holding the next token need nothing; from that chunk's start
 * the hit extends over held blocks.
 */
public record ChunkedLocalRule(int blockSize, int chunkSize) implements GroupRule {

    public ChunkedLocalRule {
        if (blockSize < 1) {
            throw new IllegalArgumentException("blockSize must be >= 1, was " + blockSize);
        }
        if (chunkSize < blockSize || chunkSize % blockSize != 0) {
            throw new IllegalArgumentException("attention chunk must be a multiple of the block size " + blockSize
                    + ", was " + chunkSize);
        }
    }

    @Override
    public String kind() {
        return "chunked_local_attention";
    }

    @Override
    public int longestHit(IntPredicate held, int maxLength) {
        int max = maxLength / blockSize;
        int n = maxLength / chunkSize * chunkSize / blockSize;
        while (n < max && held.test(n)) {
            n++;
        }
        return n * blockSize;
    }

    @Override
    public int skippedTokens(int computedTokens) {
        return computedTokens / chunkSize * chunkSize;
    }
}
