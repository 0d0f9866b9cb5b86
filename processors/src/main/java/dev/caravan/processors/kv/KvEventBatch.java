package dev.caravan.processors.kv;

import java.util.List;

import dev.caravan.policies.kv.KvEvent;

/**
 * One published batch: the events one engine scheduler step produced.
 *
 * @param timestamp        the engine's wall clock at publication, epoch seconds
 * @param events           the events it could decode, in order
 * @param dataParallelRank the publishing DP rank, or null when the engine sent none
 * @param skippedEvents    events left out because their tag was unknown or they were malformed (the rest of the batch
 *                         is still applied)
 */
public record KvEventBatch(double timestamp, List<KvEvent> events, Integer dataParallelRank, int skippedEvents) {

    public KvEventBatch {
        events = List.copyOf(events);
    }

    /** The DP rank, 0 when absent (a single-rank engine). */
    public int rank() {
        return dataParallelRank == null ? 0 : dataParallelRank;
    }
}
