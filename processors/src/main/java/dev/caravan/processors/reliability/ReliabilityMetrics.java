package dev.caravan.processors.reliability;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;

import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerListener;
import dev.caravan.processors.MeterKey;

/**
 * Meters of the breakers and retries (Prometheus names):
 * <ul>
 *   <li>{@code caravan_worker_cb_state{worker}}: 0 closed, 1 open, 2 half-open;</li>
 *   <li>{@code caravan_worker_cb_transitions_total{worker,from,to}} and
 *       {@code caravan_worker_cb_outcomes_total{worker,outcome}} (success, failure, neutral);</li>
 *   <li>{@code caravan_retries_total{reason}} (the failed attempt's outcome or status) and
 *       {@code caravan_retries_exhausted_total} (a retryable failure with no attempt left).</li>
 * </ul>
 * Beside them SGLang's names with its labels ({@code smg_worker_cb_state{worker}},
 * {@code smg_worker_cb_transitions_total{worker,from,to}}, {@code smg_worker_cb_outcomes_total{worker,outcome}} for
 * success and failure, {@code smg_worker_retries_total{worker_type,endpoint}},
 * {@code smg_worker_retries_exhausted_total{worker_type,endpoint}}). Register it as a {@link WorkerListener} after the
 * breakers so the state gauges follow the workers. Thread-safe.
 */
public final class ReliabilityMetrics implements BreakerObserver, WorkerListener {

    private final MeterRegistry registry;
    private final WorkerBreakers breakers;
    private final Map<String, Meter> stateGauges = new ConcurrentHashMap<>();
    private final Map<String, Meter> sglangStateGauges = new ConcurrentHashMap<>();
    private final Map<MeterKey, Counter> counters = new ConcurrentHashMap<>();
    private final Counter exhausted;

    public ReliabilityMetrics(MeterRegistry registry, WorkerBreakers breakers) {
        this.registry = registry;
        this.breakers = breakers;
        this.exhausted = Counter.builder("caravan.retries.exhausted")
                .description("Requests whose last allowed attempt failed retryably").register(registry);
    }

    @Override
    public void onWorkerAdded(Worker worker) {
        stateGauges.put(worker.id(), Gauge.builder("caravan.worker.cb.state", worker, w -> breakers.state(w).code())
                .description("Circuit breaker state: 0 closed, 1 open, 2 half-open")
                .tag("worker", worker.url()).register(registry));
        sglangStateGauges.put(worker.id(), Gauge.builder("smg.worker.cb.state", worker,
                        w -> breakers.state(w).code())
                .description("Circuit breaker state per worker: 0 closed, 1 open, 2 half_open (SGLang's name)")
                .tag("worker", worker.url()).register(registry));
    }

    @Override
    public void onWorkerRemoved(Worker worker) {
        for (Map<String, Meter> gauges : List.of(stateGauges, sglangStateGauges)) {
            Meter gauge = gauges.remove(worker.id());
            if (gauge != null) {
                registry.remove(gauge);
            }
        }
    }

    @Override
    public void onOutcome(Worker worker, AttemptOutcome outcome) {
        counter(MeterKey.of("o", worker.url(), outcome), () -> Counter.builder("caravan.worker.cb.outcomes")
                .description("Attempt outcomes as the circuit breakers counted them")
                .tags("worker", worker.url(), "outcome", outcome.name().toLowerCase(java.util.Locale.ROOT))
                .register(registry)).increment();
        if (outcome != AttemptOutcome.NEUTRAL) { // SGLang counts successes and failures only
            counter(MeterKey.of("so", worker.url(), outcome), () -> Counter.builder("smg.worker.cb.outcomes")
                    .description("Circuit breaker outcomes by worker and outcome (SGLang's name)")
                    .tags("worker", worker.url(), "outcome", outcome.name().toLowerCase(java.util.Locale.ROOT))
                    .register(registry)).increment();
        }
    }

    @Override
    public void onTransition(Worker worker, BreakerState from, BreakerState to) {
        counter(MeterKey.of("t", worker.url(), from, to), () -> Counter.builder("caravan.worker.cb.transitions")
                .description("Circuit breaker state changes")
                .tags("worker", worker.url(), "from", from.label(), "to", to.label()).register(registry)).increment();
        counter(MeterKey.of("st", worker.url(), from, to), () -> Counter.builder("smg.worker.cb.transitions")
                .description("Circuit breaker state transitions by worker, from, to (SGLang's name)")
                .tags("worker", worker.url(), "from", from.label(), "to", to.label()).register(registry)).increment();
    }

    /** Counts one retry; {@code reason} is the failed attempt's outcome or status ({@code upstream_failed}, {@code 503}). */
    public void retried(String reason) {
        retried(reason, null, null);
    }

    /**
     * Counts one retry, also under SGLang's name when the worker's role and the request's API are known.
     *
     * @param workerType the failed attempt's worker role ({@code regular}, {@code prefill}, {@code decode}), or null
     * @param endpoint   the request's API ({@code chat}, {@code completions}, ...), or null
     */
    public void retried(String reason, String workerType, String endpoint) {
        counter(MeterKey.of("r", reason), () -> Counter.builder("caravan.retries")
                .description("Attempts retried, by the failed attempt's outcome or status")
                .tag("reason", reason).register(registry)).increment();
        if (workerType != null && endpoint != null) {
            counter(MeterKey.of("sr", workerType, endpoint), () -> Counter.builder("smg.worker.retries")
                    .description("Total retry attempts by worker_type and endpoint (SGLang's name)")
                    .tags("worker_type", workerType, "endpoint", endpoint).register(registry)).increment();
        }
    }

    public void retriesExhausted() {
        retriesExhausted(null, null);
    }

    /** Counts a request whose last allowed attempt failed retryably (also under SGLang's name when known). */
    public void retriesExhausted(String workerType, String endpoint) {
        exhausted.increment();
        if (workerType != null && endpoint != null) {
            counter(MeterKey.of("se", workerType, endpoint), () -> Counter.builder("smg.worker.retries.exhausted")
                    .description("Requests that exhausted all retries by worker_type and endpoint (SGLang's name)")
                    .tags("worker_type", workerType, "endpoint", endpoint).register(registry)).increment();
        }
    }

    private Counter counter(MeterKey key, Supplier<Counter> create) {
        return counters.computeIfAbsent(key, k -> create.get());
    }
}
