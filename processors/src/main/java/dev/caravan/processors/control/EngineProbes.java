package dev.caravan.processors.control;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerListener;

/**
 * Which workers still need their engine asked what it is: its type (SGLang or vLLM, unless registered with a
 * {@code runtime}) and, with {@code --dp-aware}, its data-parallel size. A worker is asked at once when it registers,
 * then every {@code --worker-startup-check-interval} while its engine does not answer, for at most
 * {@code --worker-startup-timeout-secs}; after that it keeps what it has (an unknown engine is taken to be
 * {@code --backend}; an engine whose ranks are unknown is routed to as one worker). A worker that is one rank of an
 * engine is never asked: it was created from its engine's answer. Thread-safe.
 */
public final class EngineProbes implements WorkerListener {

    private record State(long firstNanos, long dueNanos) {
    }

    private final boolean dataParallelAware;
    private final long intervalNanos;
    private final long timeoutNanos;
    private final LongSupplier nanoTime;
    /** In registration order, so engines are asked in the order they joined. Guarded by itself. */
    private final Map<Worker, State> pending = new LinkedHashMap<>();

    /**
     * @param dataParallelAware {@code --dp-aware}: also ask for the engine's data-parallel size
     * @param interval          between two attempts on an engine that did not answer
     * @param timeout           how long to keep asking
     * @param nanoTime          the monotonic clock
     */
    public EngineProbes(boolean dataParallelAware, Duration interval, Duration timeout, LongSupplier nanoTime) {
        this.dataParallelAware = dataParallelAware;
        this.intervalNanos = interval.toNanos();
        this.timeoutNanos = timeout.toNanos();
        this.nanoTime = nanoTime;
    }

    public boolean dataParallelAware() {
        return dataParallelAware;
    }

    @Override
    public void onWorkerAdded(Worker worker) {
        if (worker.dataParallelRank() == null && (worker.runtime() == null || dataParallelAware)) {
            long now = nanoTime.getAsLong();
            synchronized (pending) {
                pending.put(worker, new State(now, now));
            }
        }
    }

    @Override
    public void onWorkerRemoved(Worker worker) {
        synchronized (pending) {
            pending.remove(worker);
        }
    }

    /** The workers to ask now, in registration order; each is not due again before the interval passed. */
    public List<Worker> due() {
        long now = nanoTime.getAsLong();
        List<Worker> out = new ArrayList<>();
        synchronized (pending) {
            pending.replaceAll((w, s) -> {
                if (now - s.dueNanos() < 0) {
                    return s;
                }
                out.add(w);
                return new State(s.firstNanos(), now + intervalNanos);
            });
        }
        return out;
    }

    /** The engine answered what it had to: no more questions. */
    public void done(Worker worker) {
        synchronized (pending) {
            pending.remove(worker);
        }
    }

    /**
     * The engine did not answer (well enough); returns true when it is now given up on (the timeout passed since it
     * registered), false when it will be asked again.
     */
    public boolean failed(Worker worker) {
        synchronized (pending) {
            State s = pending.get(worker);
            if (s == null) {
                return true;
            }
            if (nanoTime.getAsLong() - s.firstNanos() >= timeoutNanos) {
                pending.remove(worker);
                return true;
            }
            return false;
        }
    }

    /** Workers still waiting for an answer. */
    public int pendingCount() {
        synchronized (pending) {
            return pending.size();
        }
    }
}
