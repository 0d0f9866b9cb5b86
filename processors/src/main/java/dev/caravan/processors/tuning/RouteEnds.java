package dev.caravan.processors.tuning;

import java.util.ArrayDeque;

import org.apache.camel.AsyncCallback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.caravan.processors.time.DelayScheduler;

/**
 * Where the route ends of completed answers wait (the forward step's relay, when it has answered): per event loop, until the loop has
 * sent its next request upstream ({@link #runPending}) or {@link #LATEST_MS} ms have passed, whichever comes first.
 *
 * <p>Why: at one connection the client, the gateway's event loop and the engine take turns on one CPU, and the client's
 * next request is read only once the loop waits for I/O. Camel's continuation of an answered exchange (the rest of its
 * route, its unit of work) run right after the response's last write kept the next request waiting for it; run after
 * that request has been forwarded, it overlaps the engine's work on it instead. The timer is the latest it runs when no
 * request follows; it is cancelled when the waiting ends run earlier, so a loop that keeps forwarding never wakes for
 * it (design/request-path.md, "Per-request cost").
 *
 * <p>Threading: each event loop has its own waiting ends (a thread-local per instance), touched only by that loop's
 * thread, where the relays run and where the timer set from it fires.
 */
public final class RouteEnds {

    private static final Logger LOG = LoggerFactory.getLogger(RouteEnds.class);

    /** The longest a route end waits for the loop's next upstream request. */
    static final long LATEST_MS = 1;

    private final DelayScheduler timers;
    private final ThreadLocal<Loop> loops = ThreadLocal.withInitial(Loop::new);

    public RouteEnds(DelayScheduler timers) {
        this.timers = timers;
    }

    /** Calls {@code callback.done(false)} once this loop has sent its next request upstream, or in {@link #LATEST_MS}. */
    public void defer(AsyncCallback callback) {
        Loop loop = loops.get();
        loop.waiting.add(callback);
        if (loop.timer == null) {
            loop.timer = timers.schedule(LATEST_MS, () -> {
                loop.timer = null;
                loop.runAll();
            });
        }
    }

    /** This loop has sent a request upstream: the route ends waiting on it run now. */
    public void runPending() {
        Loop loop = loops.get();
        if (loop.waiting.isEmpty()) {
            return;
        }
        if (loop.timer != null) {
            loop.timer.cancel();
            loop.timer = null;
        }
        loop.runAll();
    }

    private static final class Loop {
        final ArrayDeque<AsyncCallback> waiting = new ArrayDeque<>();
        DelayScheduler.Scheduled timer;

        /** In the order the answers ended; an end deferred meanwhile (a route that answers at once) runs too. */
        void runAll() {
            AsyncCallback next;
            while ((next = waiting.poll()) != null) {
                try {
                    next.done(false);
                } catch (RuntimeException e) {
                    LOG.warn("Resuming an answered exchange failed: {}", e.toString());
                }
            }
        }
    }
}
