package dev.caravan.processors;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import org.apache.camel.CamelContext;
import org.apache.camel.support.LifecycleStrategySupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one thread on which a per-worker route manager (control routes, KV-event routes) adds and removes routes at run
 * time, in submission order. Registry listeners run on whatever thread changed the registry (an admin request on an
 * event loop, the discovery route, start-up), and stopping a route waits for its consumer, so the changes run here.
 *
 * <p>Camel's stop walks the context's routes, and a route added or removed meanwhile broke that walk with a
 * {@code ConcurrentModificationException}: once the context is stopping ({@link #stopWith}), the changes already
 * queued finish (for at most {@link #FINISH_TIMEOUT_SECONDS}) and later ones, delayed ones included, are skipped.
 */
public final class RouteChangeThread implements AutoCloseable {

    /** Longest wait, when the context stops, for the changes already queued. */
    public static final long FINISH_TIMEOUT_SECONDS = 10;

    private static final Logger LOG = LoggerFactory.getLogger(RouteChangeThread.class);

    private final String what;
    private final ScheduledThreadPoolExecutor executor;

    /**
     * @param threadName the thread's name
     * @param what       the changes, for the log ("KV-event route changes")
     */
    public RouteChangeThread(String threadName, String what) {
        this.what = what;
        this.executor = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, threadName);
            t.setDaemon(true);
            return t;
        });
        // retries still waiting when the context stops are dropped, not run
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }

    /** Finishes the queued changes and refuses new ones when {@code context} starts to stop. */
    public void stopWith(CamelContext context) {
        context.addLifecycleStrategy(new LifecycleStrategySupport() {
            @Override
            public void onContextStopping(CamelContext c) {
                finish();
            }
        });
    }

    /** Runs {@code change} on this thread after those submitted before it; skipped once the context is stopping. */
    public void submit(Runnable change) {
        try {
            executor.execute(change);
        } catch (RejectedExecutionException e) {
            LOG.debug("{}: one skipped, the context is stopping", what);
        }
    }

    /** Runs {@code change} on this thread after {@code delayMillis}, unless the context has begun to stop by then. */
    public void schedule(Runnable change, long delayMillis) {
        try {
            executor.schedule(change, delayMillis, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            LOG.debug("{}: a retry skipped, the context is stopping", what);
        }
    }

    /** Lets the changes already queued finish (bounded), then refuses new ones. */
    void finish() {
        executor.shutdown();
        try {
            if (!executor.awaitTermination(FINISH_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                LOG.warn("{} still running after {} s; the context stops anyway", what, FINISH_TIMEOUT_SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Stops the thread at once; the routes themselves stop with the Camel context. */
    @Override
    public void close() {
        executor.shutdownNow();
    }
}
