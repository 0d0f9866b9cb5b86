package dev.caravan.sim;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counters of one engine since start (or the last {@link #reset}), readable from any thread; served as JSON on
 * {@code GET /sim/stats}. "Requests" are HTTP inference requests; "sequences" are the prompts inside them (a batch
 * request has several).
 */
public final class SimStats {

    private final LongAdder requests = new LongAdder();
    private final Map<Integer, LongAdder> byStatus = new ConcurrentHashMap<>();
    private final LongAdder sequences = new LongAdder();
    private final LongAdder finished = new LongAdder();
    private final LongAdder cancelled = new LongAdder();
    private final LongAdder cancelledWaiting = new LongAdder();
    private final LongAdder promptTokens = new LongAdder();
    private final LongAdder cachedTokens = new LongAdder();
    private final LongAdder completionTokens = new LongAdder();
    private final LongAdder injectedErrors = new LongAdder();
    private final LongAdder hung = new LongAdder();
    private final LongAdder droppedConnections = new LongAdder();
    private final LongAdder bootstrapTimeouts = new LongAdder();
    private final LongAdder bootstrapFailures = new LongAdder();

    public void recordRequest() {
        requests.increment();
    }

    public void recordStatus(int status) {
        byStatus.computeIfAbsent(status, s -> new LongAdder()).increment();
    }

    public void recordAdmitted(int prompt, int cached) {
        sequences.increment();
        promptTokens.add(prompt);
        cachedTokens.add(cached);
    }

    public void recordFinished(int completion) {
        finished.increment();
        completionTokens.add(completion);
    }

    public void recordCancelled(boolean whileWaiting) {
        (whileWaiting ? cancelledWaiting : cancelled).increment();
    }

    public void recordInjectedError() {
        injectedErrors.increment();
    }

    public void recordHung() {
        hung.increment();
    }

    public void recordDroppedConnection() {
        droppedConnections.increment();
    }

    public void recordBootstrapTimeout() {
        bootstrapTimeouts.increment();
    }

    public void recordBootstrapFailure() {
        bootstrapFailures.increment();
    }

    /** HTTP inference requests received. */
    public long requests() {
        return requests.sum();
    }

    /** Responses sent with {@code status} (inference endpoints only). */
    public long responses(int status) {
        LongAdder a = byStatus.get(status);
        return a == null ? 0 : a.sum();
    }

    /** Sequences admitted into the engine. */
    public long sequences() {
        return sequences.sum();
    }

    public long finished() {
        return finished.sum();
    }

    /** Sequences aborted because the client went away while they were running. */
    public long cancelled() {
        return cancelled.sum();
    }

    /** Sequences aborted because the client went away while queued or waiting for a P/D bootstrap room. */
    public long cancelledWaiting() {
        return cancelledWaiting.sum();
    }

    public long promptTokens() {
        return promptTokens.sum();
    }

    public long cachedTokens() {
        return cachedTokens.sum();
    }

    public long completionTokens() {
        return completionTokens.sum();
    }

    public long injectedErrors() {
        return injectedErrors.sum();
    }

    public long hung() {
        return hung.sum();
    }

    public long droppedConnections() {
        return droppedConnections.sum();
    }

    public long bootstrapTimeouts() {
        return bootstrapTimeouts.sum();
    }

    public long bootstrapFailures() {
        return bootstrapFailures.sum();
    }

    /** Zeroes every counter. */
    public void reset() {
        for (LongAdder a : new LongAdder[] {requests, sequences, finished, cancelled, cancelledWaiting, promptTokens,
            cachedTokens, completionTokens, injectedErrors, hung, droppedConnections, bootstrapTimeouts,
            bootstrapFailures}) {
            a.reset();
        }
        byStatus.clear();
    }

    /** The counters as a JSON-ready map (keys as documented in docs/simulator.md). */
    public Map<String, Object> toJson() {
        Map<String, Object> m = new TreeMap<>();
        m.put("requests", requests());
        Map<String, Long> statuses = new TreeMap<>();
        byStatus.forEach((k, v) -> statuses.put(String.valueOf(k), v.sum()));
        m.put("requests_by_status", statuses);
        m.put("sequences", sequences());
        m.put("finished", finished());
        m.put("cancelled", cancelled());
        m.put("cancelled_waiting", cancelledWaiting());
        m.put("prompt_tokens", promptTokens());
        m.put("cached_tokens", cachedTokens());
        m.put("completion_tokens", completionTokens());
        m.put("injected_errors", injectedErrors());
        m.put("hung", hung());
        m.put("dropped_connections", droppedConnections());
        m.put("bootstrap_timeouts", bootstrapTimeouts());
        m.put("bootstrap_failures", bootstrapFailures());
        return m;
    }
}
