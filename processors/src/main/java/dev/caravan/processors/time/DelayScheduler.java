package dev.caravan.processors.time;

import io.vertx.core.Vertx;

/**
 * Runs a task after a delay without holding a thread: the relays' deadlines and idle limits, the retry back-off and the
 * admission queue's timeouts. The Vert.x implementation uses a timer, which fires on the calling thread's event-loop
 * context (so a request continues where it was); tests use a manual implementation and move time by hand.
 */
public interface DelayScheduler {

    /**
     * @return a handle for {@link #cancel}
     */
    long schedule(long delayMillis, Runnable task);

    /** Cancels a scheduled task; no-op when it already ran. */
    void cancel(long handle);

    /**
     * Runs a task once the current event's work is done, before the thread waits for more: on Vert.x, a task on the
     * calling event loop's queue, which runs after the I/O events read with the current one. The relays use it to put
     * what one read of the worker's socket brought into one write to the client's.
     */
    default void runSoon(Runnable task) {
        schedule(0, task);
    }

    /** Timers of a Vert.x instance. */
    static DelayScheduler vertx(Vertx vertx) {
        return new DelayScheduler() {
            @Override
            public long schedule(long delayMillis, Runnable task) {
                return vertx.setTimer(Math.max(1, delayMillis), id -> task.run());
            }

            @Override
            public void cancel(long handle) {
                vertx.cancelTimer(handle);
            }

            @Override
            public void runSoon(Runnable task) {
                vertx.runOnContext(v -> task.run());
            }
        };
    }
}
