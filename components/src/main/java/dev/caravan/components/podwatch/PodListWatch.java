package dev.caravan.components.podwatch;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.FilterWatchListDeletable;
import io.fabric8.kubernetes.client.dsl.PodResource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A list+watch loop over pods that never gives up: it lists, hands the complete list to the sink, watches from the
 * list's resourceVersion, and whenever the watch ends (410 Gone when the resourceVersion expired, an error, or a close
 * fabric8 could not reconnect) or the list fails, it starts over after an exponential back-off. Every
 * {@code resyncInterval} it also starts over deliberately, so a silently stalled watch costs at most one interval.
 * This is what camel-kubernetes' {@code kubernetes-pods} consumer lacks (it never re-watches after a close and never
 * lists; docs/design/upstream.md, "Camel: kubernetes-pods is one watch, with no list and no re-watch").
 *
 * <p>Consistency: each start-over bumps a generation; events of older watches are dropped. Because a watch always
 * begins at the resourceVersion of the list just delivered, the sink sees list-then-events with no gap and no stale
 * overwrite. Transport drops inside one watch are reconnected by fabric8 at the last seen resourceVersion.
 *
 * <p>Threading: everything (list, watch set-up, sink calls) runs on the one-thread {@code executor} supplied by the
 * caller, so the sink is called sequentially and in order. {@link #stop} may be called from any thread.
 */
public final class PodListWatch {

    private static final Logger LOG = LoggerFactory.getLogger(PodListWatch.class);

    /** Receives lists and events, on the loop's thread. Must not throw (failures are logged and ignored). */
    public interface Sink {
        void snapshot(List<Pod> pods);

        void event(PodEventType type, Pod pod);
    }

    private final KubernetesClient client;
    private final String namespace;
    private final Duration resyncInterval;
    private final Duration backoffInitial;
    private final Duration backoffMax;
    private final ScheduledExecutorService executor;
    private final Sink sink;
    private final PodWatchListener listener;

    private volatile boolean running;
    private volatile boolean watching;
    // Fields below are confined to the executor thread.
    private int generation;
    private int failures;
    private Watch watch;
    private ScheduledFuture<?> retry;
    private ScheduledFuture<?> resync;

    public PodListWatch(KubernetesClient client, String namespace, Duration resyncInterval, Duration backoffInitial,
                        Duration backoffMax, ScheduledExecutorService executor, Sink sink, PodWatchListener listener) {
        this.client = client;
        this.namespace = namespace == null ? "" : namespace.trim();
        this.resyncInterval = resyncInterval;
        this.backoffInitial = backoffInitial;
        this.backoffMax = backoffMax;
        this.executor = executor;
        this.sink = sink;
        this.listener = listener == null ? new PodWatchListener() { } : listener;
    }

    /** Starts listing and watching on the executor; returns at once. */
    public void start() {
        running = true;
        executor.execute(this::relist);
        if (!resyncInterval.isZero()) {
            long ms = resyncInterval.toMillis();
            resync = executor.scheduleWithFixedDelay(this::resync, ms, ms, TimeUnit.MILLISECONDS);
        }
    }

    /** Stops the loop and closes the watch (asynchronously, on the executor). */
    public void stop() {
        running = false;
        watching = false;
        try {
            executor.execute(() -> {
                generation++;
                cancel(retry);
                cancel(resync);
                closeWatch();
            });
        } catch (RejectedExecutionException e) {
            LOG.debug("Pod watch executor already shut down; its watch closes with the client");
        }
    }

    /** True while a watch is open (false while listing or backing off). */
    public boolean isWatching() {
        return watching;
    }

    /** "all namespaces" or the namespace name, for logs. */
    public String scope() {
        return namespace.isEmpty() ? "all namespaces" : "namespace " + namespace;
    }

    private FilterWatchListDeletable<Pod, PodList, PodResource> pods() {
        return namespace.isEmpty() ? client.pods().inAnyNamespace() : client.pods().inNamespace(namespace);
    }

    private void resync() {
        if (running) {
            LOG.debug("Periodic resync of pods in {}", scope());
            relist();
        }
    }

    private void relist() {
        if (!running) {
            return;
        }
        int gen = ++generation;
        cancel(retry);
        watching = false;
        closeWatch();
        PodList list;
        try {
            list = pods().list();
        } catch (RuntimeException e) {
            restart(PodWatchListener.CAUSE_LIST_FAILED, e);
            return;
        }
        List<Pod> items = list.getItems() == null ? List.of() : list.getItems();
        String rv = list.getMetadata() == null ? null : list.getMetadata().getResourceVersion();
        deliver(() -> sink.snapshot(items));
        try {
            Watch w = pods().watch(new ListOptionsBuilder().withResourceVersion(rv).withAllowWatchBookmarks(true)
                    .build(), new GenerationWatcher(gen));
            if (!running || gen != generation) {
                w.close();
                return;
            }
            watch = w;
        } catch (RuntimeException e) {
            restart(isGone(e) ? PodWatchListener.CAUSE_EXPIRED : PodWatchListener.CAUSE_ERROR, e);
            return;
        }
        watching = true;
        failures = 0;
        listener.onWatchEstablished();
        LOG.debug("Watching pods in {} from resourceVersion {} ({} listed)", scope(), rv, items.size());
    }

    private void restart(String cause, Throwable error) {
        watching = false;
        closeWatch();
        if (!running) {
            return;
        }
        long delay = Math.min(backoffMax.toMillis(), backoffInitial.toMillis() << Math.min(failures, 20));
        failures++;
        listener.onWatchRestart(cause);
        if (PodWatchListener.CAUSE_EXPIRED.equals(cause)) {
            LOG.info("Pod watch in {} expired (410 Gone); re-listing in {} ms", scope(), delay);
        } else {
            LOG.warn("Pod watch in {} ended ({}: {}); re-listing in {} ms", scope(), cause,
                    error == null ? "closed without an error" : error.toString(), delay);
        }
        cancel(retry);
        retry = executor.schedule(this::relist, delay, TimeUnit.MILLISECONDS);
    }

    private void deliver(Runnable call) {
        try {
            call.run();
        } catch (RuntimeException e) {
            LOG.error("Pod event sink failed", e);
        }
    }

    private void closeWatch() {
        Watch w = watch;
        watch = null;
        if (w != null) {
            try {
                w.close();
            } catch (RuntimeException e) {
                LOG.debug("Closing pod watch failed: {}", e.toString());
            }
        }
    }

    private static void cancel(ScheduledFuture<?> f) {
        if (f != null) {
            f.cancel(false);
        }
    }

    private static boolean isGone(Throwable e) {
        return e instanceof KubernetesClientException k && k.getCode() == 410;
    }

    /** Forwards one watch's callbacks to the executor, dropping them once a newer list has started. */
    private final class GenerationWatcher implements Watcher<Pod> {
        private final int gen;

        GenerationWatcher(int gen) {
            this.gen = gen;
        }

        private boolean current() {
            return running && gen == generation;
        }

        @Override
        public void eventReceived(Action action, Pod pod) {
            PodEventType type = switch (action) {
                case ADDED -> PodEventType.ADDED;
                case MODIFIED -> PodEventType.MODIFIED;
                case DELETED -> PodEventType.DELETED;
                default -> null; // BOOKMARK only advances the resourceVersion; ERROR is turned into onClose by fabric8
            };
            if (type != null && pod != null) {
                executor.execute(() -> {
                    if (current()) {
                        deliver(() -> sink.event(type, pod));
                    }
                });
            }
        }

        @Override
        public void onClose(WatcherException cause) {
            executor.execute(() -> {
                if (current()) {
                    restart(cause.isHttpGone() ? PodWatchListener.CAUSE_EXPIRED : PodWatchListener.CAUSE_ERROR, cause);
                }
            });
        }

        @Override
        public void onClose() {
            executor.execute(() -> {
                if (current() && watch != null) {
                    restart(PodWatchListener.CAUSE_CLOSED, null);
                }
            });
        }
    }
}
