package dev.caravan.policies;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The set of workers the gateway routes to, in registration order.
 *
 * <p>Writes (add, remove) are rare and serialised; each publishes a new immutable snapshot, so request threads iterate
 * {@link #all()} or {@link #list} without locks and never see a half-applied change. A removed worker disappears from
 * every later snapshot at once (no new routing) while requests that already hold its {@link WorkerLease} finish.
 */
public final class WorkerRegistry {

    private static final Logger LOG = LoggerFactory.getLogger(WorkerRegistry.class);

    private final Object writeLock = new Object();
    private final List<WorkerListener> listeners = new CopyOnWriteArrayList<>();
    private volatile Map<String, Worker> byId = Map.of();
    private volatile List<Worker> snapshot = List.of();

    /**
     * Registers a worker and notifies listeners.
     *
     * @throws IllegalStateException when a worker with the same URL and role is already registered
     */
    public Worker add(Worker worker) {
        synchronized (writeLock) {
            for (Worker w : snapshot) {
                if (w.url().equals(worker.url()) && w.role() == worker.role()) {
                    throw new IllegalStateException("worker " + worker.url() + " (" + worker.role().wireName()
                            + ") is already registered as " + w.id());
                }
            }
            Map<String, Worker> ids = new LinkedHashMap<>(byId);
            ids.put(worker.id(), worker);
            publish(ids);
        }
        LOG.info("Worker added: {}", worker);
        for (WorkerListener l : listeners) {
            notifySafely(() -> l.onWorkerAdded(worker), l, worker);
        }
        return worker;
    }

    /** Removes a worker by id; returns it, or empty when unknown. */
    public Optional<Worker> remove(String id) {
        Worker removed;
        synchronized (writeLock) {
            Map<String, Worker> ids = new LinkedHashMap<>(byId);
            removed = ids.remove(id);
            if (removed == null) {
                return Optional.empty();
            }
            publish(ids);
        }
        LOG.info("Worker removed: {} (in flight: {})", removed, removed.load());
        for (WorkerListener l : listeners) {
            notifySafely(() -> l.onWorkerRemoved(removed), l, removed);
        }
        return Optional.of(removed);
    }

    /** Removes every worker with this URL (any role); returns those removed. */
    public List<Worker> removeByUrl(String url) {
        String normalized = Worker.normalizeUrl(url);
        List<Worker> removed = new ArrayList<>();
        for (Worker w : snapshot) {
            if (w.url().equals(normalized)) {
                remove(w.id()).ifPresent(removed::add);
            }
        }
        return removed;
    }

    private void publish(Map<String, Worker> ids) {
        // ids is a fresh LinkedHashMap: wrapping it keeps registration order (Map.copyOf would not, and the next add
        // copies byId, so the snapshot's order, which round_robin and every tie-break depend on, would be lost)
        byId = Collections.unmodifiableMap(ids);
        snapshot = List.copyOf(ids.values());
    }

    private static void notifySafely(Runnable r, WorkerListener l, Worker w) {
        try {
            r.run();
        } catch (RuntimeException e) {
            LOG.warn("Worker listener {} failed for {}: {}", l, w, e.toString());
        }
    }

    public Optional<Worker> get(String id) {
        return Optional.ofNullable(byId.get(id));
    }

    public Optional<Worker> findByUrl(String url) {
        String normalized = Worker.normalizeUrl(url);
        for (Worker w : snapshot) {
            if (w.url().equals(normalized)) {
                return Optional.of(w);
            }
        }
        return Optional.empty();
    }

    /** Every registered worker, in registration order; an immutable snapshot. */
    public List<Worker> all() {
        return snapshot;
    }

    /**
     * Workers matching a model and a role, in registration order.
     *
     * @param model model id, or null for any model
     * @param role  role, or null for any role
     */
    public List<Worker> list(String model, WorkerRole role) {
        List<Worker> all = snapshot;
        List<Worker> out = new ArrayList<>(all.size());
        String m = model == null ? null : Worker.normalizeModel(model);
        for (Worker w : all) {
            if ((m == null || w.modelId().equals(m)) && (role == null || w.role() == role)) {
                out.add(w);
            }
        }
        return out;
    }

    public int size() {
        return snapshot.size();
    }

    /** Adds a listener; it is told only about changes made after this call. */
    public void addListener(WorkerListener listener) {
        listeners.add(listener);
    }

    public void removeListener(WorkerListener listener) {
        listeners.remove(listener);
    }
}
