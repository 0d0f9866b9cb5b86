package dev.caravan.processors.pd;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import dev.caravan.policies.Worker;

/**
 * The P/D meters (Prometheus names):
 * <ul>
 *   <li>{@code caravan_pd_selections_total{leg,worker}}: workers chosen per leg;</li>
 *   <li>{@code caravan_pd_failures_total{leg,reason}}: legs that did not answer 2xx, by {@code http_4xx},
 *       {@code http_5xx}, {@code transport}, {@code timeout};</li>
 *   <li>{@code caravan_pd_early_rejections_total}: decode answered an error before prefill finished (prefill
 *       aborted);</li>
 *   <li>{@code caravan_pd_cancellations_total{leg,reason}}: legs whose connection the gateway closed, by
 *       {@code prefill_failed}, {@code decode_rejected}, {@code client_closed}, {@code retry}, {@code abandoned};</li>
 *   <li>{@code caravan_pd_prefill_wait_seconds}: from dispatch to the end of the prefill response (the time decode
 *       waits for its KV, as seen by the router).</li>
 * </ul>
 * Thread-safe.
 */
public final class PdMetrics {

    /** Cancellation reasons. */
    public static final String PREFILL_FAILED = "prefill_failed";
    public static final String DECODE_REJECTED = "decode_rejected";
    public static final String CLIENT_CLOSED = "client_closed";
    public static final String ABANDONED = "abandoned";
    /** A retryable decode answer closed unread because another attempt follows. */
    public static final String RETRY = "retry";

    private static final Duration[] WAIT_BUCKETS = {
        Duration.ofMillis(5), Duration.ofMillis(10), Duration.ofMillis(25), Duration.ofMillis(50),
        Duration.ofMillis(100), Duration.ofMillis(250), Duration.ofMillis(500), Duration.ofSeconds(1),
        Duration.ofMillis(2500), Duration.ofSeconds(5), Duration.ofSeconds(10), Duration.ofSeconds(30)};

    private final MeterRegistry registry;
    private final Map<String, Meter> cache = new ConcurrentHashMap<>();
    private final Counter earlyRejections;
    private final Timer prefillWait;

    public PdMetrics(MeterRegistry registry) {
        this.registry = registry;
        this.earlyRejections = Counter.builder("caravan.pd.early.rejections")
                .description("P/D requests whose decode answered an error before prefill finished (prefill aborted)")
                .register(registry);
        this.prefillWait = Timer.builder("caravan.pd.prefill.wait")
                .description("Time from P/D dispatch to the end of the prefill response")
                .serviceLevelObjectives(WAIT_BUCKETS).register(registry);
    }

    void selected(Leg leg, Worker worker) {
        counter("s\0" + leg + '\0' + worker.url(), () -> Counter.builder("caravan.pd.selections")
                .description("P/D workers selected, per leg").tags("leg", leg.wireName(), "worker", worker.url())
                .register(registry)).increment();
    }

    void failed(Leg leg, String reason) {
        counter("f\0" + leg + '\0' + reason, () -> Counter.builder("caravan.pd.failures")
                .description("P/D legs that did not answer 2xx, by reason").tags("leg", leg.wireName(), "reason", reason)
                .register(registry)).increment();
    }

    void cancelled(Leg leg, String reason) {
        counter("c\0" + leg + '\0' + reason, () -> Counter.builder("caravan.pd.cancellations")
                .description("P/D legs cancelled by the gateway (connection closed), by reason")
                .tags("leg", leg.wireName(), "reason", reason).register(registry)).increment();
    }

    void earlyRejection() {
        earlyRejections.increment();
    }

    void prefillWait(long nanos) {
        prefillWait.record(nanos, TimeUnit.NANOSECONDS);
    }

    /** The failure reason tag of a leg result that is not 2xx and not cancelled. */
    static String failureReason(LegResult r) {
        return switch (r.kind()) {
            case RESPONSE -> r.status() >= 500 ? "http_5xx" : "http_4xx";
            case TIMEOUT -> "timeout";
            case ATTEMPT_TIMEOUT -> "attempt_timeout";
            default -> "transport";
        };
    }

    private Counter counter(String key, Supplier<Counter> create) {
        return (Counter) cache.computeIfAbsent(key, k -> create.get());
    }
}
