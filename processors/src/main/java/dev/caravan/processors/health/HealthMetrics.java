package dev.caravan.processors.health;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

import dev.caravan.policies.Worker;

/**
 * Health-check meters (Prometheus names): {@code caravan_health_checks_total{worker,result=success|failure}} and
 * {@code caravan_worker_health_transitions_total{worker,to=healthy|unhealthy}}, and under SGLang's name
 * {@code smg_worker_health_checks_total{worker_type,result}}. The state itself is {@code caravan_worker_healthy{worker}}
 * (GatewayMetrics).
 */
public final class HealthMetrics implements HealthObserver {

    private final MeterRegistry registry;
    private final Map<String, Counter> counters = new ConcurrentHashMap<>();

    public HealthMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void onProbe(Worker worker, boolean ok) {
        String result = ok ? "success" : "failure";
        counter("p\0" + worker.url() + '\0' + result, () -> Counter.builder("caravan.health.checks")
                .description("Health probes by result").tags("worker", worker.url(), "result", result)
                .register(registry)).increment();
        String role = worker.role().wireName();
        counter("s\0" + role + '\0' + result, () -> Counter.builder("smg.worker.health.checks")
                .description("Health check results by worker_type and result (SGLang's name)")
                .tags("worker_type", role, "result", result).register(registry)).increment();
    }

    @Override
    public void onTransition(Worker worker, boolean healthy) {
        String to = healthy ? "healthy" : "unhealthy";
        counter("t\0" + worker.url() + '\0' + to, () -> Counter.builder("caravan.worker.health.transitions")
                .description("Worker health flips").tags("worker", worker.url(), "to", to)
                .register(registry)).increment();
    }

    private Counter counter(String key, Supplier<Counter> create) {
        return counters.computeIfAbsent(key, k -> create.get());
    }
}
