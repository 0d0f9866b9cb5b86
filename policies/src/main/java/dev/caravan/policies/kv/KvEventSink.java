package dev.caravan.policies.kv;

/**
 * Receives what engines report about their KV caches, already decoded and normalised: the block index, the parity
 * self-check and the event-calibrated tree (the gateway's {@code TreeCalibrator}) all listen to the same stream.
 *
 * <p>Calls for one worker come from that worker's event pipeline, in publication order, on one thread at a time;
 * calls for different workers may be concurrent.
 */
public interface KvEventSink {

    /** The worker's engine cached these blocks (GPU tier), in prefix order. */
    void blocksStored(String workerId, String model, long[] hashes);

    /** The worker's engine evicted these blocks. */
    void blocksRemoved(String workerId, String model, long[] hashes);

    /** The worker's engine dropped its whole cache ({@code AllBlocksCleared}, or its publisher restarted). */
    void workerCleared(String workerId);
}
