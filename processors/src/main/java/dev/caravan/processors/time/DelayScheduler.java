package dev.caravan.processors.time;

import io.vertx.core.Vertx;

/**
 * Runs a task after a delay without holding a thread: the relays' deadlines and idle limits, the retry back-off and the
 * admission queue's timeouts. The Vert.x implementations fire on the calling thread's event-loop context (so a request
 * continues where it was): {@link #vertx} on Vert.x's timers, and one on the event loops' own task queues that the
 * Camel tuning installs ({@code dev.caravan.processors.tuning.CamelTuning#timers}); tests use a manual implementation
 * and move time by hand.
 */
public interface DelayScheduler {

    /** A scheduled task. */
    interface Scheduled {

        /** Cancels the task; no-op when it already ran or was cancelled. */
        void cancel();
    }

    /** Schedules {@code task} to run once after {@code delayMillis}. */
    Scheduled schedule(long delayMillis, Runnable task);

    /**
     * Runs a task once the current event's work is done, before the thread waits for more: on Vert.x, a task on the
     * calling event loop's queue, which runs after the I/O events read with the current one. The relays use it to put
     * what one read of the worker's socket brought into one write to the client's.
     */
    default void runSoon(Runnable task) {
        schedule(0, task);
    }

    /** Vert.x's timers ({@code setTimer}) of a Vert.x instance. */
    static DelayScheduler vertx(Vertx vertx) {
        return new VertxTimerScheduler(vertx);
    }
}
