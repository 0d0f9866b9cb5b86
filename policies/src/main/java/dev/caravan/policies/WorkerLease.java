package dev.caravan.policies;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One unit of in-flight load on a worker, taken when a request is dispatched and released exactly once whatever happens:
 * stream end, upstream error, client disconnect or retry. Releasing twice is a no-op, so every code path may release
 * defensively.
 *
 * <pre>{@code
 * WorkerLease lease = worker.acquire();
 * upstream.send(...).onComplete(r -> lease.release());
 * }</pre>
 */
public final class WorkerLease implements AutoCloseable {

    private final Worker worker;
    private final AtomicBoolean released = new AtomicBoolean();
    private final Runnable onRelease;

    WorkerLease(Worker worker, Runnable onRelease) {
        this.worker = worker;
        this.onRelease = onRelease;
    }

    public Worker worker() {
        return worker;
    }

    /** Gives the load back. Returns true the first time, false on every later call. */
    public boolean release() {
        if (released.compareAndSet(false, true)) {
            worker.decrementLoad();
            if (onRelease != null) {
                onRelease.run();
            }
            return true;
        }
        return false;
    }

    public boolean isReleased() {
        return released.get();
    }

    @Override
    public void close() {
        release();
    }
}
