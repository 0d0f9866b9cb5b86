package dev.caravan.policies;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.ReentrantLock;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The set of workers the gateway routes to, in registration order.
 *
 * <p>Writes (add, remove) are rare and serialised; each publishes a new immutable snapshot, so request threads iterate
 * {@link #all()} or {@link #list} without locks and never see a half-applied change. A removed worker disappears from
 * every later snapshot at once (no new routing) while requests that already hold its {@link WorkerLease} finish.
 *
 * <p>Listener delivery is ordered per registry: each change enqueues its event while still holding the write lock, so
 * the queue is in change order, and events are delivered from that queue, in order, under a separate delivery lock.
 * Without it a concurrent add then remove of one worker could reach listeners as remove-then-add (both notified after
 * their lock was released), leaking whatever the listener creates per worker. The changing thread drains the queue
 * before returning, so when {@code add} or {@code remove} returns its own event has been delivered (by it or by the
 * thread that drained first), as listeners expect. The write lock is never held while waiting for the delivery lock,
 * so the two cannot deadlock each other; a listener that changes the registry itself (same thread, delivery lock held)
 * only enqueues, and the outer drain delivers that event after the current one. Listeners must not block on another
 * thread that is changing this registry.
 */
public final class WorkerRegistry {

    private static final Logger LOG = LoggerFactory.getLogger(WorkerRegistry.class);

    private final Object writeLock = new Object();
    private final ReentrantLock deliveryLock = new ReentrantLock();
    private final Queue<Event> pending = new ConcurrentLinkedQueue<>();
    private final List<WorkerListener> listeners = new CopyOnWriteArrayList<>();
    private volatile Map<String, Worker> byId = Map.of();
    private volatile List<Worker> snapshot = List.of();

    /**
     * Registers a worker and notifies listeners. The same URL may be registered once per role (a P/D engine can be a
     * prefill and a decode worker).
     *
     * @throws IllegalStateException when a worker with the same URL and role, or with the same id, is already registered
     *                               (an id clash would otherwise replace that worker without a removal event)
     */
    public Worker add(Worker worker) {
        synchronized (writeLock) {
            for (Worker w : snapshot) {
                if (w.url().equals(worker.url()) && w.role() == worker.role()) {
                    throw new IllegalStateException("worker " + worker.url() + " (" + worker.role().wireName()
                            + ") is already registered as " + w.id());
                }
            }
            Worker sameId = byId.get(worker.id());
            if (sameId != null) {
                throw new IllegalStateException("worker id " + worker.id() + " is already registered for "
                        + sameId.url());
            }
            Map<String, Worker> ids = new LinkedHashMap<>(byId);
            ids.put(worker.id(), worker);
            publish(ids);
            pending.add(new Event(true, worker, List.copyOf(listeners)));
        }
        LOG.info("Worker added: {}", worker);
        deliver();
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
            pending.add(new Event(false, removed, List.copyOf(listeners)));
        }
        LOG.info("Worker removed: {} (in flight: {})", removed, removed.load());
        deliver();
        return Optional.of(removed);
    }

    /**
     * Removes every worker with this URL (any role); returns those removed. An engine's URL also removes the workers
     * that are its data-parallel ranks ({@code url@rank}), as SGLang's removal by URL does.
     */
    public List<Worker> removeByUrl(String url) {
        String normalized = Worker.normalizeUrl(url);
        List<Worker> removed = new ArrayList<>();
        for (Worker w : snapshot) {
            if (w.url().equals(normalized) || w.engineUrl().equals(normalized)) {
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

    /**
     * Delivers every pending event in change order. A thread already delivering (a listener changed the registry) returns
     * at once: its outer loop picks the new event up next.
     */
    private void deliver() {
        if (deliveryLock.isHeldByCurrentThread()) {
            return;
        }
        deliveryLock.lock();
        try {
            for (Event e = pending.poll(); e != null; e = pending.poll()) {
                for (WorkerListener l : e.listeners()) {
                    notifySafely(e, l);
                }
            }
        } finally {
            deliveryLock.unlock();
        }
    }

    private static void notifySafely(Event e, WorkerListener l) {
        try {
            if (e.added()) {
                l.onWorkerAdded(e.worker());
            } else {
                l.onWorkerRemoved(e.worker());
            }
        } catch (RuntimeException ex) {
            LOG.warn("Worker listener {} failed for {}: {}", l, e.worker(), ex.toString());
        }
    }

    /** One change to deliver, with the listeners registered when it happened. */
    private record Event(boolean added, Worker worker, List<WorkerListener> listeners) {
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
