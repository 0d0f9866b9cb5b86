package dev.caravan.kubernetes;

/** What {@link PodClassifier} decided about one pod: it is a worker, or why it is not. */
public sealed interface PodVerdict {

    /** The pod should be a worker. */
    record Eligible(DiscoveredWorker worker) implements PodVerdict {
    }

    /**
     * The pod should not be a worker.
     *
     * @param reason the metric reason used if a worker for it has to be removed
     * @param detail human-readable explanation for the log (e.g. the bad annotation value)
     */
    record Ineligible(DeregistrationReason reason, String detail) implements PodVerdict {
    }
}
