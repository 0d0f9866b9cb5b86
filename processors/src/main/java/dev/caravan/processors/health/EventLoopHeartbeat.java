package dev.caravan.processors.health;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.LongSupplier;

import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutor;

/**
 * Proves that every event loop of a Netty group (the gateway's Vert.x event loops) still runs tasks: each loop runs a
 * heartbeat task of its own every {@code period}, scheduled on that loop, which stamps the time. A loop that is blocked
 * (a step that waits, an endless computation) or starved cannot run it, so its stamp ages; {@link #stalled} lists the
 * loops whose stamp is older than a limit. No thread of its own and nothing waits: reading is a few volatile loads, so
 * a liveness probe served on one of those very loops never blocks on another.
 *
 * <p>The clock is injected ({@code nanoTime}), so tests move time by hand while the loops stamp it.
 */
public final class EventLoopHeartbeat implements AutoCloseable {

    /** How often each loop stamps; the stall limit must be well above it. */
    public static final Duration DEFAULT_PERIOD = Duration.ofSeconds(1);

    private final List<EventExecutor> loops = new ArrayList<>();
    private final AtomicLongArray beats;
    private final LongSupplier nanoTime;
    private final List<ScheduledFuture<?>> tasks = new ArrayList<>();

    /**
     * Starts the heartbeats.
     *
     * @param group    the event loops to watch
     * @param period   how often each loop stamps
     * @param nanoTime the monotonic clock
     */
    public EventLoopHeartbeat(EventLoopGroup group, Duration period, LongSupplier nanoTime) {
        group.forEach(loops::add);
        this.beats = new AtomicLongArray(loops.size());
        this.nanoTime = nanoTime;
        long now = nanoTime.getAsLong();
        long periodNanos = period.toNanos();
        for (int i = 0; i < loops.size(); i++) {
            int loop = i;
            beats.set(loop, now);
            tasks.add(loops.get(loop).scheduleAtFixedRate(() -> beats.set(loop, nanoTime.getAsLong()), periodNanos,
                    periodNanos, TimeUnit.NANOSECONDS));
        }
    }

    /** The number of loops watched. */
    public int loops() {
        return loops.size();
    }

    /** Indexes of the loops that have not stamped for longer than {@code limit}, in order; empty when all run. */
    public List<Integer> stalled(Duration limit) {
        long now = nanoTime.getAsLong();
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < beats.length(); i++) {
            if (now - beats.get(i) > limit.toNanos()) {
                out.add(i);
            }
        }
        return out;
    }

    /** How long ago loop {@code i} last stamped. */
    public Duration sinceLastBeat(int i) {
        return Duration.ofNanos(nanoTime.getAsLong() - beats.get(i));
    }

    /** Cancels the heartbeat tasks. */
    @Override
    public void close() {
        tasks.forEach(t -> t.cancel(false));
    }
}
