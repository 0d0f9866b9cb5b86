package dev.caravan.policies.kv;

/**
 * A sliding-window group: a hit of length {@code L} needs only the blocks inside the window of the token after it,
 * {@code ceil((window - 1) / blockTokens)} consecutive blocks ending at {@code L}; a run of held blocks from the first
 * block counts even when shorter than that (vLLM's {@code SlidingWindowManager}).
 */
record SlidingWindowRule(int group, int blockTokens, int window) implements GroupRule {

    SlidingWindowRule {
        if (blockTokens < 1 || window < 1) {
            throw new IllegalArgumentException("blockTokens and window must be >= 1, were " + blockTokens + " and "
                    + window);
        }
    }

    @Override
    public int hit(int limit, int align, int keyTokens, Held held) {
        int needed = Math.max(1, ceilDiv(window - 1, blockTokens));
        int blocks = limit / blockTokens;
        int run = 0;
        // from the right: the first run of `needed` held blocks, whose end is aligned, ends the hit
        for (int i = blocks - 1; i >= 0; i--) {
            if (!holds(held, keyTokens, i)) {
                run = 0;
                continue;
            }
            if (run == 0 && (i + 1) * blockTokens % align != 0) {
                continue; // a hit must end on the alignment
            }
            run++;
            if (run >= needed) {
                return (i + run) * blockTokens;
            }
        }
        // no full window anywhere: the run of held blocks from block 0 is a hit, cut to the alignment
        int lead = run * blockTokens;
        return lead - lead % align;
    }

    private static int ceilDiv(int a, int b) {
        return a <= 0 ? 0 : (a + b - 1) / b;
    }
}
