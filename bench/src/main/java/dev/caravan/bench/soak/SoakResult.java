package dev.caravan.bench.soak;

import java.util.List;
import java.util.Map;

/**
 * What a soak measured.
 *
 * @param wallSeconds     how long the load ran
 * @param sent            requests sent
 * @param answered        answered in full (2xx; a stream with its {@code [DONE]})
 * @param limited         429 {@code rate_limit_exceeded}: the limited tenant over its own limit
 * @param failed          failed, by any cause
 * @param failedByCause   failures by cause
 * @param attributed      failures attributed, by fault label
 * @param unattributed    failures no fault explains (id, cause, detail, replica), in no order
 * @param lost            requests neither answered nor failed by the drain deadline
 * @param p99InsideMs     p99 latency of answered requests sent or ended inside a fault window
 * @param p99OutsideMs    p99 latency of the other answered requests
 * @param injections      the faults as they ran, in order
 * @param samples         heap after GC and live threads of each replica over time
 * @param tenantReloadsFailed failed tenants-file reloads counted by replica 0 (the bad file is counted, not applied)
 */
public record SoakResult(double wallSeconds, long sent, long answered, long limited, long failed,
                         Map<String, Long> failedByCause, Map<String, Long> attributed, List<String> unattributed,
                         long lost, double p99InsideMs, double p99OutsideMs, List<InjectionFigure> injections,
                         List<Sample> samples, double tenantReloadsFailed) {

    /**
     * One fault as it ran.
     *
     * @param fault        its label
     * @param target       the engine or replica index (-1: none)
     * @param startSeconds when it was injected, from the start of the load
     * @param heldSeconds  injection to recovery
     * @param agreeSeconds recovery until the replicas agreed again; -1 when they did not within the limit
     */
    public record InjectionFigure(String fault, int target, double startSeconds, double heldSeconds,
                                  double agreeSeconds) {
    }

    /**
     * One sample of a replica.
     *
     * @param seconds       from the start of the load
     * @param replica       its index
     * @param heapAfterGcMb heap in use right after a full GC, MiB
     * @param threads       live threads
     * @param phase         {@code warm} (the baseline after warm-up), {@code run} or {@code end} (the last one under
     *                      load)
     */
    public record Sample(double seconds, int replica, double heapAfterGcMb, double threads, String phase) {
    }

    /** The sample of {@code replica} in {@code phase}, or null. */
    public Sample sample(int replica, String phase) {
        return samples.stream().filter(s -> s.replica() == replica && s.phase().equals(phase)).reduce((a, b) -> b)
                .orElse(null);
    }
}
