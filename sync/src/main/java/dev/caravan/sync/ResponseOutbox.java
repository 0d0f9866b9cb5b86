package dev.caravan.sync;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * This replica's Responses API ids waiting to be shared on {@code IMap caravan.responses} (id → the URL of the worker
 * that stored the response), so that a request continuing a response through another replica reaches the same engine.
 * Bounded: beyond {@link #CAPACITY} waiting ids a new one is dropped and counted (that response stays reachable
 * through this replica). Thread-safe: added on the request threads, drained by the publishing route.
 */
final class ResponseOutbox {

    /** The channel name in the sync metrics. */
    static final String CHANNEL = "responses";
    /** Ids waiting at most (~10 ms of a very busy replica's Responses traffic many times over). */
    static final int CAPACITY = 10_000;
    /** Ids per published batch at most. */
    static final int BATCH = 1_000;

    private final ConcurrentLinkedQueue<Map.Entry<String, String>> queue = new ConcurrentLinkedQueue<>();
    private final AtomicInteger size = new AtomicInteger();
    private final SyncMetrics metrics;

    ResponseOutbox(SyncMetrics metrics) {
        this.metrics = metrics;
    }

    /** Queues that the worker at {@code workerUrl} stored {@code responseId}. */
    void add(String responseId, String workerUrl) {
        if (size.incrementAndGet() > CAPACITY) {
            size.decrementAndGet();
            metrics.dropped(CHANNEL);
            return;
        }
        queue.add(Map.entry(responseId, workerUrl));
    }

    /** The next batch (id → worker URL, a serializable map for {@code putAll}), or null when none waits. */
    HashMap<String, String> drain() {
        HashMap<String, String> batch = null;
        Map.Entry<String, String> e;
        while ((batch == null || batch.size() < BATCH) && (e = queue.poll()) != null) {
            size.decrementAndGet();
            if (batch == null) {
                batch = new HashMap<>();
            }
            batch.put(e.getKey(), e.getValue());
        }
        return batch;
    }
}
