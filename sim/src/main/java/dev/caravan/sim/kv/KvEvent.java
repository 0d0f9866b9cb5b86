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
     * or null when not kept.
     */
    record BlockStored(long[] blockHashes, Long parentHash, int[] tokenIds, int blockSize, Medium medium,
                       String cacheSalt, byte[][] blockDigests, byte[] parentDigest) implements KvEvent {

        public BlockStored {
            if (blockHashes.length == 0) {
                throw new IllegalArgumentException("BlockStored needs at least one block hash");
            }
            if (tokenIds.length != blockHashes.length * blockSize) {
                throw new IllegalArgumentException("BlockStored token_ids must hold " + blockHashes.length * blockSize
                        + " tokens, was " + tokenIds.length);
            }
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
            return "BlockStored" + Arrays.toString(blockHashes) + " parent=" + parentHash + " " + medium;
        }
    }

    /**
     * Blocks dropped from {@code medium} (the engines send one event per evicted block); {@code blockDigests} as in
     * {@link BlockStored}, or null.
     */
    record BlockRemoved(long[] blockHashes, Medium medium, byte[][] blockDigests) implements KvEvent {

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
            return "BlockRemoved" + Arrays.toString(blockHashes) + " " + medium;
        }
    }

    /** The whole prefix cache (every tier) was reset. */
    record AllBlocksCleared() implements KvEvent {
    }
}
