package dev.caravan.policies.kv;

/**
 * Hears what engines report about their KV caches once the {@link KvBlockIndex} has resolved it into Caravan's block
 * keys ({@link BlockKeys}): the parity self-check and the event-calibrated tree (the gateway's {@code TreeCalibrator})
 * listen here.
 *
 * <p>Calls for one worker come from that worker's event pipelines, in publication order per engine rank, one at a
 * time; calls for different workers may be concurrent.
 */
public interface KvEventSink {

    /** The worker's engine stored these blocks on its GPU, in prefix order (keys recomputed from the event's tokens). */
    void blocksStored(String workerId, String model, long[] keys);

    /** The worker's engine evicted these blocks from its GPU. */
    void blocksRemoved(String workerId, String model, long[] keys);

    /** One engine rank of the worker dropped its whole cache ({@code AllBlocksCleared}, or its publisher restarted). */
    void rankCleared(String workerId, int rank);
}
