package dev.caravan.processors.admission;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

/**
 * Admission meters (Prometheus names): {@code caravan_admission_queue_depth}, {@code caravan_admission_slots_in_use},
 * {@code caravan_requests_in_flight} (admitted inference requests not yet finished — what shutdown drains),
 * {@code caravan_admission_admitted_total{path=immediate|queued}}, {@code caravan_admission_rejected_total{reason}}
 * (queue_full, queue_timeout, rate_limited, shutting_down, client_gone) and {@code caravan_admission_queue_wait_seconds}.
 */
public final class AdmissionMetrics implements AdmissionObserver {

    private final Counter immediate;
    private final Counter queued;
    private final Map<Rejection, Counter> rejected = new EnumMap<>(Rejection.class);
    private final Timer wait;

    public AdmissionMetrics(MeterRegistry registry) {
        this.immediate = Counter.builder("caravan.admission.admitted").description("Inference requests admitted")
                .tag("path", "immediate").register(registry);
        this.queued = Counter.builder("caravan.admission.admitted").description("Inference requests admitted")
                .tag("path", "queued").register(registry);
        for (Rejection r : Rejection.values()) {
            rejected.put(r, Counter.builder("caravan.admission.rejected")
                    .description("Inference requests not admitted, by reason").tag("reason", r.label())
                    .register(registry));
        }
        this.wait = Timer.builder("caravan.admission.queue.wait").description("Time admitted requests spent queued")
                .register(registry);
    }

    /** Adds the gauges that read the controller's counters. */
    public void track(MeterRegistry registry, AdmissionController controller) {
        Gauge.builder("caravan.admission.queue.depth", controller, AdmissionController::queued)
                .description("Inference requests waiting for a slot").register(registry);
        Gauge.builder("caravan.admission.slots.in.use", controller, AdmissionController::slotsInUse)
                .description("Concurrency slots held (0 without --max-concurrent-requests)").register(registry);
        Gauge.builder("caravan.requests.in.flight", controller, AdmissionController::inFlight)
                .description("Admitted inference requests that have not finished").register(registry);
    }

    @Override
    public void onAdmitted(FlowKey key, boolean fromQueue, long waitedNanos) {
        if (fromQueue) {
            queued.increment();
            wait.record(waitedNanos, TimeUnit.NANOSECONDS);
        } else {
            immediate.increment();
        }
    }

    @Override
    public void onRejected(FlowKey key, Rejection reason) {
        rejected.get(reason).increment();
    }
}
