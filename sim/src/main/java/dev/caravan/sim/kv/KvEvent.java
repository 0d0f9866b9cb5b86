package dev.caravan.sim.kv;

import java.util.Arrays;

/**
 * One KV-cache event, as vLLM's block pool produces them. Hashes are the 64-bit external block ids
 * ({@link dev.caravan.policies.kv.BlockHasher#external}); they go on the wire as unsigned integers.
 */
public sealed interface KvEvent {

    /** Blocks that just became full and cached; {@code parentHash} is null when the first block is block 0. */
    record BlockStored(long[] blockHashes, Long parentHash, int[] tokenIds, int blockSize) implements KvEvent {

        public BlockStored {
            if (blockHashes.length == 0) {
                throw new IllegalArgumentException("BlockStored needs at least one block hash");
            }
            if (tokenIds.length != blockHashes.length * blockSize) {
                throw new IllegalArgumentException("BlockStored token_ids must hold " + blockHashes.length * blockSize
                        + " tokens, was " + tokenIds.length);
            }
        }

        @Override
        public String toString() {
            return "BlockStored" + Arrays.toString(blockHashes) + " parent=" + parentHash;
        }
    }

    /** One evicted block (vLLM sends one event per eviction). */
    record BlockRemoved(long[] blockHashes) implements KvEvent {

        @Override
        public String toString() {
            return "BlockRemoved" + Arrays.toString(blockHashes);
        }
    }

    /** The whole prefix cache was reset. */
    record AllBlocksCleared() implements KvEvent {
    }
}
