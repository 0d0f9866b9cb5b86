package dev.caravan.sim.engine;

import java.util.function.LongSupplier;

import io.vertx.core.Vertx;

/**
 * Runs an {@link EngineCore} in real time on one Vert.x context: virtual time is wall time since start multiplied
 * by the time scale, and a single Vert.x timer wakes the core at its next event (at least 1 ms apart; events that
 * fall due together are handled in one wake-up). No thread per request: every call must come from the engine's
 * context thread. Counters readable from other threads are published in volatile fields after each step.
 */
public final class EngineDriver {

    private static final long NANOS_PER_MS = 1_000_000L;

    private final Vertx vertx;
    private final EngineCore core;
    private final double timeScale;
    private final LongSupplier realNanos;
    private final long origin;
    private long timerId = -1;
    private long timerDue = Long.MAX_VALUE;
    private volatile int running;
    private volatile int waiting;
    private volatile double kvUsage;

    public EngineDriver(Vertx vertx, EngineCore core, double timeScale, LongSupplier realNanos) {
        this.vertx = vertx;
        this.core = core;
        this.timeScale = timeScale;
        this.realNanos = realNanos;
        this.origin = realNanos.getAsLong();
    }

    /** Virtual now, in nanoseconds since the engine started. */
    public long now() {
        return Math.round((realNanos.getAsLong() - origin) * timeScale);
    }

    /** Virtual duration of a wall-clock span (and back): virtual = wall × time scale. */
    public long toWallMillis(long virtualNanos) {
        return (long) Math.ceil(virtualNanos / timeScale / NANOS_PER_MS);
    }

    public void submit(SimRequest r) {
        reschedule(core.submit(r, Math.max(now(), core.now())));
    }

    public void cancel(SimRequest r) {
        reschedule(core.cancel(r, Math.max(now(), core.now())));
    }

    public boolean flushCache() {
        core.advance(Math.max(now(), core.now()));
        boolean ok = core.flushCache();
        reschedule(core.nextWakeup());
        return ok;
    }

    public EngineCore core() {
        return core;
    }

    private void onTimer(long id) {
        if (id != timerId) {
            return;
        }
        timerId = -1;
        timerDue = Long.MAX_VALUE;
        reschedule(core.advance(Math.max(now(), core.now())));
    }

    private void reschedule(long next) {
        running = core.running();
        waiting = core.waiting();
        kvUsage = core.cache().usage();
        if (next == Long.MAX_VALUE) {
            if (timerId >= 0) {
                vertx.cancelTimer(timerId);
                timerId = -1;
                timerDue = Long.MAX_VALUE;
            }
            return;
        }
        if (timerId >= 0 && timerDue <= next) {
            return;
        }
        if (timerId >= 0) {
            vertx.cancelTimer(timerId);
        }
        long delayMs = Math.max(1, toWallMillis(next - now()));
        timerDue = next;
        timerId = vertx.setTimer(delayMs, this::onTimer);
    }

    public int running() {
        return running;
    }

    public int waiting() {
        return waiting;
    }

    public double kvUsage() {
        return kvUsage;
    }
}
