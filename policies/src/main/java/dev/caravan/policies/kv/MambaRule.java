package dev.caravan.policies.kv;

/**
 * A Mamba (or other linear-attention state) group: the state is kept only as snapshots at the group's block
 * boundaries, and a hit needs one snapshot, the last one at or before the hit's end, on the alignment (vLLM's
 * {@code MambaManager}, prefix caching in its {@code align} mode). Which snapshots exist is what the engine reported
 * storing and evicting; an engine that keeps fewer (a retention interval) simply reports fewer.
 */
record MambaRule(int group, int blockTokens) implements GroupRule {

    MambaRule {
        if (blockTokens < 1) {
            throw new IllegalArgumentException("blockTokens must be >= 1, was " + blockTokens);
        }
    }

    @Override
    public int hit(int limit, int align, int keyTokens, Held held) {
        for (int i = limit / blockTokens - 1; i >= 0; i--) {
            if ((i + 1) * blockTokens % align == 0 && holds(held, keyTokens, i)) {
                return (i + 1) * blockTokens;
            }
        }
        return 0;
    }
}
