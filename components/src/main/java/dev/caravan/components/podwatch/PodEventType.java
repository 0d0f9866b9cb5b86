package dev.caravan.components.podwatch;

/** The kind of exchange a {@code pod-watch:} consumer emits ({@link PodWatchConstants#EVENT_TYPE}). */
public enum PodEventType {
    /** Watch event: a pod appeared. Body: the {@code Pod}. */
    ADDED,
    /** Watch event: a pod changed (status, labels, annotations, deletion timestamp). Body: the {@code Pod}. */
    MODIFIED,
    /** Watch event: a pod is gone from the API server. Body: its last state. */
    DELETED,
    /**
     * A complete pod list (at start, after every watch restart, and every resync interval). Body: {@code List<Pod>};
     * everything not in it no longer exists. Events that follow continue from this list's resourceVersion.
     */
    SNAPSHOT
}
