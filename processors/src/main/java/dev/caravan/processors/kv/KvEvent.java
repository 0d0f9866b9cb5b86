package dev.caravan.processors.kv;

import java.util.Arrays;
import java.util.Locale;

/**
 * One engine KV-cache event, as vLLM (and SGLang, and Caravan's simulator) publish them. Hashes are the 64-bit
 * {@code ExternalBlockHash} ids, held in a {@code long} with the same bits as the unsigned wire value.
 */
public sealed interface KvEvent {

    /** The medium a GPU-resident block reports; null (older engines) also means GPU. */
    String GPU = "GPU";

    /** True when the event concerns GPU memory (medium {@code "GPU"} or absent), the tier precise routing scores. */
    boolean isGpu();

    /**
     * Blocks became full and cached, in prefix order.
     *
     * @param blockHashes     ids of the newly cached blocks, in order
     * @param parentBlockHash id of the block before the first new one, or null when the first is block 0
     * @param tokenIds        the tokens of exactly these blocks ({@code blockHashes.length * blockSize} when well-formed)
     * @param blockSize       tokens per block, 0 when the engine omitted it
     * @param medium          {@code "GPU"}, {@code "CPU"} (offload connectors), ... or null
     * @param loraName        adapter name, or null
     */
    record BlockStored(long[] blockHashes, Long parentBlockHash, int[] tokenIds, int blockSize, String medium,
                       String loraName) implements KvEvent {
        @Override
        public boolean isGpu() {
            return medium == null || GPU.equals(medium.toUpperCase(Locale.ROOT));
        }

        @Override
        public String toString() {
            return "BlockStored" + Arrays.toString(blockHashes) + "(parent=" + parentBlockHash + ", tokens="
                    + tokenIds.length + ", blockSize=" + blockSize + ", medium=" + medium + ")";
        }
    }

    /**
     * Blocks were evicted (vLLM sends one event per evicted block).
     *
     * @param blockHashes ids of the evicted blocks
     * @param medium      as in {@link BlockStored}
     */
    record BlockRemoved(long[] blockHashes, String medium) implements KvEvent {
        @Override
        public boolean isGpu() {
            return medium == null || GPU.equals(medium.toUpperCase(Locale.ROOT));
        }

        @Override
        public String toString() {
            return "BlockRemoved" + Arrays.toString(blockHashes) + "(medium=" + medium + ")";
        }
    }

    /** The engine's whole prefix cache was reset ({@code reset_prefix_cache}, sleep). */
    record AllBlocksCleared() implements KvEvent {
        @Override
        public boolean isGpu() {
            return true;
        }
    }
}
