package dev.caravan.policies.kv;

/**
 * A chunked-local-attention group (Llama 4): the token after a hit of length {@code L} attends only to its own chunk
 * of {@code chunk} tokens, so the hit needs the blocks from the chunk's start to {@code L}; blocks before it are
 * skipped (vLLM's {@code ChunkedLocalAttentionManager}, which scans those blocks from the chunk's start and stops at
 * the first one missing).
 */
record ChunkedLocalRule(int group, int blockTokens, int chunk) implements GroupRule {

    ChunkedLocalRule {
        if (blockTokens < 1 || chunk < 1) {
            throw new IllegalArgumentException("blockTokens and chunk must be >= 1, were " + blockTokens + " and "
                    + chunk);
        }
    }

    @Override
    public int hit(int limit, int align, int keyTokens, Held held) {
        int blocks = limit / blockTokens;
        int start = limit > 0 ? limit / chunk * chunk / blockTokens : 0;
        int end = start;
        while (end < blocks && holds(held, keyTokens, end)) {
            end++;
        }
        return end * blockTokens;
    }
}
