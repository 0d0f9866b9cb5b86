package dev.caravan.policies.fleet;

import java.util.List;

/**
 * bucket's length ranges, shared by the replicas of a gateway: one replica (the oldest sync member) re-cuts them from
 * its window and publishes them; the others adopt what it published instead of re-cutting from theirs, so every replica
 * routes a prompt length to the same worker (docs/design/replica-sync.md, "Rings, buckets and orders").
 */
public interface BucketRanges {

    /** One worker's prompt-length range, inclusive. */
    record Range(String url, long lo, long hi) {
    }

    /** True on the one replica that cuts the ranges for the fleet; also true while the replica is alone. */
    boolean cutsForFleet();

    /** Publishes the model's new ranges (called by the cutting replica after a re-cut). */
    void publish(String model, List<Range> ranges);

    /** The model's ranges the cutting replica published last, or null when none (or unreadable). */
    List<Range> latest(String model);
}
