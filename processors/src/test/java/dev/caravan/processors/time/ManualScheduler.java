package dev.caravan.processors.time;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.OptionalLong;

/**
 * A {@link DelayScheduler} on a hand-moved clock: {@link #advance} runs every task that came due, in due order.
 * {@link #nanoTime()} reads the same clock on {@link System#nanoTime()}'s scale, for code that takes both a
 * {@code LongSupplier nanoTime} and a scheduler.
 */
public final class ManualScheduler implements DelayScheduler {

    private record Task(long handle, long dueMillis, Runnable run) {
    }

    /** A handle of this scheduler; cancelling removes its task (nothing once it ran). */
    private record Handle(ManualScheduler owner, long handle) implements Scheduled {
        @Override
        public void cancel() {
            synchronized (owner) {
                owner.tasks.removeIf(t -> t.handle == handle);
            }
        }
    }

    private final List<Task> tasks = new ArrayList<>();
    private final List<Runnable> soon = new ArrayList<>();
    private long nowMillis;
    private long nextHandle;

    @Override
    public synchronized Scheduled schedule(long delayMillis, Runnable task) {
        long handle = nextHandle++;
        tasks.add(new Task(handle, nowMillis + delayMillis, task));
        return new Handle(this, handle);
    }

    /** Queued until {@link #settle} (or {@link #advance}): what a Vert.x event loop runs once the current event is done. */
    @Override
    public synchronized void runSoon(Runnable task) {
        soon.add(task);
    }

    /** Runs the tasks queued by {@link #runSoon}, and those they queue, in order: the current event's work is done. */
    public void settle() {
        while (true) {
            Runnable next;
            synchronized (this) {
                if (soon.isEmpty()) {
                    return;
                }
                next = soon.remove(0);
            }
            next.run();
        }
    }

    /** Moves time forward and runs what came due, after what was queued to run soon. */
    public void advance(long millis) {
        settle();
        long target;
        synchronized (this) {
            target = nowMillis + millis;
        }
        while (true) {
            Task next;
            synchronized (this) {
                next = tasks.stream().filter(t -> t.dueMillis <= target)
                        .min(Comparator.comparingLong(Task::dueMillis)).orElse(null);
                if (next == null) {
                    nowMillis = target;
                    return;
                }
                tasks.remove(next);
                nowMillis = next.dueMillis;
            }
            next.run.run();
        }
    }

    /** Timers not yet run (not counting {@link #runSoon} tasks). */
    public synchronized int pending() {
        return tasks.size();
    }

    /** When the earliest pending task is due (milliseconds on this clock), or empty when none is pending. */
    public synchronized OptionalLong nextDueMillis() {
        return tasks.stream().mapToLong(Task::dueMillis).min();
    }

    /** Milliseconds moved so far (for clocks derived from this scheduler). */
    public synchronized long nowMillis() {
        return nowMillis;
    }

    /** This clock in nanoseconds. */
    public synchronized long nanoTime() {
        return nowMillis * 1_000_000;
    }
}
