package dev.caravan.processors.health;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.LongSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerListener;

/**
 * The health checker's state: per worker, its hysteresis ({@link HealthHysteresis}), when its next probe is due and
 * whether one is running. The {@code health-check} timer route asks {@link #due()} every tick (one second) for the
 * probes to send — each worker on its own interval, the gateway's or its {@code health_check_interval_secs} — and
 * feeds the results back through {@link #apply}, which flips {@link Worker#setHealthy} with hysteresis. A probe still
 * running (a slow worker and a long timeout) is never doubled. Workers with health checks disabled are kept healthy and
 * never probed.
 *
 * <p>Thread-safety: the timer thread plans, an event loop applies; each worker's state is guarded by its own monitor.
 */
public final class HealthChecker implements WorkerListener {

    private static final Logger LOG = LoggerFactory.getLogger(HealthChecker.class);

    private final HealthConfig defaults;
    private final LongSupplier nanoTime;
    private final Map<String, State> states = new ConcurrentHashMap<>();
    private final List<HealthObserver> observers = new CopyOnWriteArrayList<>();

    /**
     * @param defaults the gateway's settings (per-worker values override them)
     * @param nanoTime the clock intervals are measured on
     */
    public HealthChecker(HealthConfig defaults, LongSupplier nanoTime) {
        this.defaults = defaults;
        this.nanoTime = nanoTime;
    }

    public void addObserver(HealthObserver observer) {
        observers.add(observer);
    }

    /** A worker's effective settings. */
    public HealthConfig settingsFor(Worker worker) {
        return defaults.forWorker(worker.healthCheck());
    }

    @Override
    public void onWorkerAdded(Worker worker) {
        // first probe at the next tick: a worker registered dead starts counting failures at once
        states.put(worker.id(), new State(worker, nanoTime.getAsLong()));
    }

    @Override
    public void onWorkerRemoved(Worker worker) {
        states.remove(worker.id());
    }

    /** The probes due now; each is marked running until {@link #apply} gets its result. */
    public List<HealthProbe> due() {
        long now = nanoTime.getAsLong();
        List<HealthProbe> probes = new ArrayList<>();
        for (State s : states.values()) {
            HealthConfig cfg = settingsFor(s.worker);
            synchronized (s) {
                if (cfg.disabled()) {
                    s.hysteresis.force(true);
                    if (!s.worker.isHealthy()) {
                        flip(s.worker, true);
                    }
                    continue;
                }
                if (s.probing || now - s.nextDueNanos < 0) {
                    continue;
                }
                s.probing = true;
                s.nextDueNanos = now + cfg.interval().toNanos();
            }
            probes.add(new HealthProbe(s.worker, s.worker.engineUrl() + cfg.endpoint(), cfg.timeout()));
        }
        return probes;
    }

    /** Applies one probe result with hysteresis. Results of workers that left are ignored. */
    public void apply(HealthProbeResult result) {
        Worker worker = result.probe().worker();
        State s = states.get(worker.id());
        if (s == null || s.worker != worker) {
            return;
        }
        HealthConfig cfg = settingsFor(worker);
        boolean flipped;
        boolean healthy;
        synchronized (s) {
            s.probing = false;
            flipped = s.hysteresis.record(result.ok(), cfg.successThreshold(), cfg.failureThreshold());
            healthy = s.hysteresis.healthy();
        }
        for (HealthObserver o : observers) {
            o.onProbe(worker, result.ok());
        }
        if (!result.ok()) {
            LOG.debug("Health probe of {} failed: {}", worker.url(), result.detail());
        }
        if (flipped) {
            flip(worker, healthy);
            if (!healthy) {
                LOG.warn("Worker {} is unhealthy after {} failed probes (last: {})", worker.url(),
                        cfg.failureThreshold(), result.detail());
            }
        }
    }

    private void flip(Worker worker, boolean healthy) {
        worker.setHealthy(healthy);
        LOG.info("Worker {} is now {}", worker.url(), healthy ? "healthy" : "unhealthy");
        for (HealthObserver o : observers) {
            o.onTransition(worker, healthy);
        }
    }

    private static final class State {
        final Worker worker;
        final HealthHysteresis hysteresis;
        long nextDueNanos;
        boolean probing;

        State(Worker worker, long nextDueNanos) {
            this.worker = worker;
            this.hysteresis = new HealthHysteresis(worker.isHealthy());
            this.nextDueNanos = nextDueNanos;
        }
    }
}
