package dev.caravan.sim.kv;

import java.util.Arrays;

/**
 * One KV-cache event, as an engine's block pool (and its CPU offload tier) produces it. Hashes are the 64-bit ids the
 * engine's {@link dev.caravan.sim.hash.BlockHashChain} publishes. The wire form depends on the publisher
 * ({@link KvEventEncoder}): vLLM's and SGLang's differ in fields, and in what a CPU-tier store carries.
 */
public sealed interface KvEvent {

    /** Where a block lives. */
    enum Medium {
        /** GPU memory: the engine's prefix cache. */
        GPU,
        /** The CPU offload tier. */
        CPU
    }

    /**
     * Blocks that just became cached on {@code medium}, in chain order. {@code parentHash} is the block before the
     * first one (null when the first block is block 0); {@code tokenIds} are exactly those blocks' tokens;
     * {@code cacheSalt} is the request's salt when the run starts at block 0 (vLLM folds it into that block's hash and
     * reports it in {@code extra_keys}), else null. {@code blockDigests} and {@code parentDigest} are the full digests
     * behind the ids (published instead of the ids when vLLM runs with {@code VLLM_KV_EVENTS_USE_INT_BLOCK_HASHES=0}),
     * or null when not kept. {@code group} is the KV-cache group that stored them, or null for a single-group engine.
     */
    record BlockStored(long[] blockHashes, Long parentHash, int[] tokenIds, int blockSize, Medium medium,
                       String cacheSalt, byte[][] blockDigests, byte[] parentDigest, KvGroup group)
            implements KvEvent {

        /**
         * Without a group (a single-group engine) the event names at least one block and exactly its tokens. A
         * group's store is what vLLM's block pool publishes for one group: {@code tokenIds} span every block from
         * the first newly computed one, while {@code blockHashes} name only those the group caches (a sliding
         * window's or Mamba's skipped blocks are not), possibly none.
         */
        public BlockStored {
            if (group == null && blockHashes.length == 0) {
                throw new IllegalArgumentException("BlockStored needs at least one block hash");
            }
            if (group == null ? tokenIds.length != blockHashes.length * blockSize
                    : tokenIds.length < blockHashes.length * blockSize || tokenIds.length % blockSize != 0) {
                throw new IllegalArgumentException("BlockStored token_ids must hold " + blockHashes.length * blockSize
                        + " tokens" + (group == null ? "" : " or more whole blocks") + ", was " + tokenIds.length);
            }
        }

        /** A single-group store. */
        public BlockStored(long[] blockHashes, Long parentHash, int[] tokenIds, int blockSize, Medium medium,
                           String cacheSalt, byte[][] blockDigests, byte[] parentDigest) {
            this(blockHashes, parentHash, tokenIds, blockSize, medium, cacheSalt, blockDigests, parentDigest, null);
        }

        /** A store without digests. */
        public BlockStored(long[] blockHashes, Long parentHash, int[] tokenIds, int blockSize, Medium medium,
                           String cacheSalt) {
            this(blockHashes, parentHash, tokenIds, blockSize, medium, cacheSalt, null, null);
        }

        /** A GPU store without a salt or digests. */
        public BlockStored(long[] blockHashes, Long parentHash, int[] tokenIds, int blockSize) {
            this(blockHashes, parentHash, tokenIds, blockSize, Medium.GPU, null);
        }

        @Override
        public String toString() {
            return "BlockStored" + Arrays.toString(blockHashes) + " parent=" + parentHash + " " + medium
                    + (group == null ? "" : " group " + group.index());
        }
    }

    /**
     * Blocks dropped from {@code medium} (the engines send one event per evicted block); {@code blockDigests} as in
     * {@link BlockStored}, or null; {@code group} the KV-cache group that dropped them, or null for a single-group
     * engine.
     */
    record BlockRemoved(long[] blockHashes, Medium medium, byte[][] blockDigests, KvGroup group) implements KvEvent {

        /** A single-group removal. */
        public BlockRemoved(long[] blockHashes, Medium medium, byte[][] blockDigests) {
            this(blockHashes, medium, blockDigests, null);
        }

        /** A removal without digests. */
        public BlockRemoved(long[] blockHashes, Medium medium) {
            this(blockHashes, medium, null);
        }

        /** A GPU removal. */
        public BlockRemoved(long[] blockHashes) {
            this(blockHashes, Medium.GPU);
        }

        @Override
        public String toString() {
            return "BlockRemoved" + Arrays.toString(blockHashes) + " " + medium
                    + (group == null ? "" : " group " + group.index());
        }
    }

    /** The whole prefix cache (every tier) was reset. */
    record AllBlocksCleared() implements KvEvent {
    }
}
