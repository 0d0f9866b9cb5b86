package dev.caravan.processors.tuning;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.netty.util.concurrent.ScheduledFuture;
import io.vertx.core.Vertx;
import io.vertx.core.impl.ContextInternal;

import dev.caravan.processors.time.DelayScheduler;

/**
 * {@link DelayScheduler} on a Vert.x instance: each task is scheduled on the calling context's Netty event loop and run
 * through that context ({@code emit}: the context is current while it runs, and what it throws goes to the context's
 * exception handler), as a Vert.x timer is.
 *
 * <p>Why not {@code vertx.setTimer}: every request sets one or two timers and cancels them microseconds later (a
 * relay's limits, a route end's latest moment), and a Vert.x timer also takes an id from a counter shared by all event
 * loops, enters and leaves a map of all timers and, on a deployed verticle's context, a close hook: about 2 % of the
 * event loops' samples (design/request-path.md, "Per-request cost"). Here a task is one entry in its loop's own queue,
 * cancelled in place. A deployed verticle's undeployment therefore does not cancel these tasks; they run when due, as
 * long as the Vert.x instance runs (the request-path tasks are bounded by the request limits).
 */
final class EventLoopDelayScheduler implements DelayScheduler {

    private final Vertx vertx;

    EventLoopDelayScheduler(Vertx vertx) {
        this.vertx = vertx;
    }

    @Override
    public Scheduled schedule(long delayMillis, Runnable task) {
        ContextInternal context = (ContextInternal) vertx.getOrCreateContext();
        Task scheduled = new Task(context, task);
        scheduled.future = context.nettyEventLoop().schedule(scheduled, Math.max(1, delayMillis),
                TimeUnit.MILLISECONDS);
        return scheduled;
    }

    @Override
    public void runSoon(Runnable task) {
        vertx.runOnContext(v -> task.run());
    }

    /** Runs once, or not at all once cancelled: whichever of the two comes first wins (a worker context runs it later). */
    private static final class Task extends AtomicBoolean implements Scheduled, Runnable {

        private final transient ContextInternal context;
        private final transient Runnable task;
        private transient volatile ScheduledFuture<?> future;

        Task(ContextInternal context, Runnable task) {
            this.context = context;
            this.task = task;
        }

        @Override
        public void run() {
            context.emit(this, Task::fire);
        }

        private void fire() {
            if (compareAndSet(false, true)) {
                task.run();
            }
        }

        @Override
        public void cancel() {
            if (compareAndSet(false, true)) {
                ScheduledFuture<?> f = future;
                if (f != null) {
                    f.cancel(false);
                }
            }
        }
    }
}
