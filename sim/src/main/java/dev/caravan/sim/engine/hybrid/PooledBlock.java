package dev.caravan.sim.engine.hybrid;

/** A cached block of one group in the shared pool: (hash, group) names it; {@code refs} counts the requests using it. */
final class PooledBlock {
    final int group;
    final long hash;
    final byte[] digest;
    int refs;

    PooledBlock(int group, long hash, byte[] digest) {
        this.group = group;
        this.hash = hash;
        this.digest = digest;
    }
}
