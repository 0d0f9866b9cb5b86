package dev.caravan.policies;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One unit of in-flight load on a worker, taken when a request is dispatched and released exactly once whatever happens:
 * stream end, upstream error, client disconnect or retry. Releasing twice is a no-op, so every code path may release
 * defensively.
 *
 * <p>The forward step also reports the engine's first response bytes ({@link #firstToken()}: the first streamed event,
 * which an engine sends once the prompt's prefill is done); a lease released without that report runs its first-token
 * action at release, so a policy's per-request bookkeeping of pending prefills never leaks.
 *
 * <pre>{@code
 * WorkerLease lease = worker.acquire();
 * upstream.send(...).onComplete(r -> lease.release());
 * }</pre>
 */
public final class WorkerLease implements AutoCloseable {

    private final Worker worker;
    private final AtomicBoolean released = new AtomicBoolean();
    /** Null without a first-token action: most leases need none, and this is allocated per request. */
    private final AtomicBoolean firstToken;
    private final Runnable onRelease;
    private final Runnable onFirstToken;

    WorkerLease(Worker worker, Runnable onRelease, Runnable onFirstToken) {
        this.worker = worker;
        this.onRelease = onRelease;
        this.onFirstToken = onFirstToken;
        this.firstToken = onFirstToken == null ? null : new AtomicBoolean();
    }

    public Worker worker() {
        return worker;
    }

    /**
     * The engine's first response bytes arrived: runs the first-token action the first time (before release), then
     * nothing. Cheap enough to call on every chunk.
     */
    public void firstToken() {
        if (onFirstToken != null && !firstToken.get() && firstToken.compareAndSet(false, true)) {
            onFirstToken.run();
        }
    }

    /** Gives the load back (running the first-token action first if it has not run). True the first time only. */
    public boolean release() {
        if (released.compareAndSet(false, true)) {
            firstToken();
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
