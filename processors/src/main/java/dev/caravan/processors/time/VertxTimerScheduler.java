package dev.caravan.processors.time;

import io.vertx.core.Vertx;

/**
 * {@link DelayScheduler} on Vert.x's own timers: {@code vertx.setTimer}, which fires on the calling context (so a
 * request continues on its event loop), cancelled with {@code cancelTimer}; {@link #runSoon} is
 * {@code runOnContext}. Thread-safe, as Vert.x's timers are.
 */
final class VertxTimerScheduler implements DelayScheduler {

    private final Vertx vertx;

    VertxTimerScheduler(Vertx vertx) {
        this.vertx = vertx;
    }

    @Override
    public Scheduled schedule(long delayMillis, Runnable task) {
        long id = vertx.setTimer(Math.max(1, delayMillis), t -> task.run());
        return () -> vertx.cancelTimer(id);
    }

    @Override
    public void runSoon(Runnable task) {
        vertx.runOnContext(v -> task.run());
    }
}
