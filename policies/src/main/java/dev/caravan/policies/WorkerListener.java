package dev.caravan.policies;

/**
 * Told about registry changes. Per-worker resources (circuit breaker, KV-event route, tree tenant, metrics) are created in
 * {@link #onWorkerAdded} and undone in {@link #onWorkerRemoved}. Called synchronously on the thread that changed the
 * registry, after the change is visible; implementations must be quick and must not throw.
 */
public interface WorkerListener {

    default void onWorkerAdded(Worker worker) {
    }

    /**
     * The worker no longer receives new requests. Its in-flight requests still hold leases and finish normally
     * (draining): do not tear down what they need, such as the HTTP connection pool.
     */
    default void onWorkerRemoved(Worker worker) {
    }
}
