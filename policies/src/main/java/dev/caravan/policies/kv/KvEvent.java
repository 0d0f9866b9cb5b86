package dev.caravan.policies.kv;

import java.util.Arrays;

/**
 * One engine KV-cache event, decoded from vLLM's or SGLang's wire format (docs/design/kv-events.md, "Decoder"), as the
 * {@link KvBlockIndex} applies it. Engine hashes are opaque 64-bit ids (the unsigned wire value's bits in a
 * {@code long}; bytes ids reduced to their last 8 bytes): the index never interprets them, it only maps each to the
 * key it computes from the tokens ({@link BlockKeys}).
 */
public sealed interface KvEvent {

    /**
     * Blocks became full and cached, in prefix order.
     *
     * @param blockHashes     engine ids of the newly cached blocks, in order
     * @param parentBlockHash engine id of the block before the first new one, or null when the first is block 0 of its
     *                        sequence
     * @param tokenIds        the tokens of exactly these blocks; empty when the engine sent none (vLLM's CPU offload
     *                        events)
     * @param blockSize       tokens per block, 0 when the engine omitted it
     * @param medium          {@code "GPU"}, {@code "CPU"}, {@code "CPU_PINNED"}, {@code "STORAGE"}, ... or null (GPU)
     * @param loraName        LoRA adapter name, or null
     * @param cacheSalt       the sequence's {@code cache_salt} (vLLM: a string in block 0's {@code extra_keys}; SGLang:
     *                        a field), or null; meaningful only when {@code parentBlockHash} is null
     * @param blockExtras     per block, the other extra keys the engine hashed (multimodal, prompt embeddings) as
     *                        canonical bytes, or null entries; null when none
     * @param groupIdx        KV-cache group (hybrid models), null = group 0
     * @param kvCacheSpecKind the group's kind ({@code "full_attention"}, {@code "sliding_window"}, ...), or null
     * @param slidingWindow   a sliding-window group's window in tokens ({@code kv_cache_spec_sliding_window}), or null
     */
    record BlockStored(long[] blockHashes, Long parentBlockHash, int[] tokenIds, int blockSize, String medium,
                       String loraName, String cacheSalt, byte[][] blockExtras, Integer groupIdx,
                       String kvCacheSpecKind, Integer slidingWindow) implements KvEvent {

        /** A store that reports no sliding window. */
        public BlockStored(long[] blockHashes, Long parentBlockHash, int[] tokenIds, int blockSize, String medium,
                           String loraName, String cacheSalt, byte[][] blockExtras, Integer groupIdx,
                           String kvCacheSpecKind) {
            this(blockHashes, parentBlockHash, tokenIds, blockSize, medium, loraName, cacheSalt, blockExtras,
                    groupIdx, kvCacheSpecKind, null);
        }

        /** A GPU store of a plain sequence (no LoRA, salt, extras or group): the common case, for tests. */
        public static BlockStored of(long[] blockHashes, Long parentBlockHash, int[] tokenIds, int blockSize) {
            return new BlockStored(blockHashes, parentBlockHash, tokenIds, blockSize, "GPU", null, null, null, null,
                    null);
        }

        /** The extra bytes of block {@code i}, or null. */
        public byte[] extra(int i) {
            return blockExtras == null || i >= blockExtras.length ? null : blockExtras[i];
        }

        @Override
        public String toString() {
            return "BlockStored" + Arrays.toString(blockHashes) + "(parent=" + parentBlockHash + ", tokens="
                    + tokenIds.length + ", blockSize=" + blockSize + ", medium=" + medium + ", lora=" + loraName
                    + ", group=" + groupIdx + ")";
        }
    }

    /**
     * Blocks were evicted (vLLM sends one event per evicted block, SGLang one per radix node).
     *
     * @param blockHashes engine ids of the evicted blocks
     * @param medium      as in {@link BlockStored}
     * @param groupIdx    the KV-cache group that evicted them, null = group 0
     */
    record BlockRemoved(long[] blockHashes, String medium, Integer groupIdx) implements KvEvent {

        @Override
        public String toString() {
            return "BlockRemoved" + Arrays.toString(blockHashes) + "(medium=" + medium + ", group=" + groupIdx + ")";
        }
    }

    /** The engine's whole prefix cache was reset ({@code reset_prefix_cache}, sleep). */
    record AllBlocksCleared() implements KvEvent {
    }
}
