package dev.caravan.components.podwatch;

/**
 * Told about the health of a {@code pod-watch:} consumer's list+watch loop (for metrics); called on the consumer's own
 * thread, must be quick and must not throw.
 */
public interface PodWatchListener {

    /** Cause of a restart: the API server answered 410 Gone (the watch's resourceVersion expired). */
    String CAUSE_EXPIRED = "expired";
    /** Cause of a restart: the watch failed or could not be opened for another reason. */
    String CAUSE_ERROR = "error";
    /** Cause of a restart: the watch closed cleanly without the consumer asking (fabric8 gave up reconnecting). */
    String CAUSE_CLOSED = "closed";
    /** Cause of a restart: listing the pods failed. */
    String CAUSE_LIST_FAILED = "list_failed";

    /** The watch ended or could not be established; a fresh list and watch follow after a back-off. */
    default void onWatchRestart(String cause) {
    }

    /** A watch is open again after a successful list. */
    default void onWatchEstablished() {
    }
}
