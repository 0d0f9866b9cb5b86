package dev.caravan.sim.engine.hybrid;

import dev.caravan.sim.engine.KvPool;

/** The blocks one running request holds in every group of a {@link HybridPrefixCache}. */
public final class HybridLease implements KvPool.Lease {
    final int cachedTokens;
    final int promptTokens;
    /** Per group, the cached block held at each prompt block index (null = none). */
    final PooledBlock[][] held;
    /** Per group, blocks below this index were already released while the request ran. */
    final int[] freedBelow;
    /** Per group, blocks reserved without a hash (partial prompt block, output, Mamba's running state). */
    final int[] anonymous;
    boolean released;

    HybridLease(int cachedTokens, int promptTokens, int groups, int fullBlocks) {
        this.cachedTokens = cachedTokens;
        this.promptTokens = promptTokens;
        this.held = new PooledBlock[groups][fullBlocks];
        this.freedBelow = new int[groups];
        this.anonymous = new int[groups];
    }

    @Override
    public int cachedTokens() {
        return cachedTokens;
    }

    @Override
    public int offloadedTokens() {
        return 0;
    }

    @Override
    public int blocks() {
        int n = 0;
        for (int g = 0; g < held.length; g++) {
            n += anonymous[g];
            for (PooledBlock b : held[g]) {
                if (b != null) {
                    n++;
                }
            }
        }
        return n;
    }
}
