package dev.caravan.processors.admission;

import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

import dev.caravan.processors.time.DelayScheduler;

/**
 * Admission control for inference requests: an optional rate limit, a concurrency limit with a bounded FIFO queue, the
 * in-flight count graceful shutdown waits on, and the draining switch.
 *
 * <p>{@link #admit} decides at once when it can — {@link Admitted} (a ticket), {@link Rejected} (rate limited, queue
 * full, draining) — and otherwise queues the request and returns {@link Queued}; the {@link Waiter} is then called exactly
 * once, later: with a ticket when a slot is handed over by {@link AdmissionTicket#release()} (strict FIFO, no barging:
 * a released slot goes to the head of the queue), or with {@link Rejection#QUEUE_TIMEOUT} from a
 * {@link DelayScheduler} timer, or {@link Rejection#SHUTTING_DOWN} when draining starts, or {@link Rejection#CLIENT_GONE}
 * from {@link #cancel}. Nobody waits on a thread: a queued request is an entry and a timer.
 *
 * <p>Thread-safety: one lock guards the counters and the queue for a few field updates; waiters and timers are called
 * after it is released. Unlimited ({@code maxConcurrent = -1}) admission only counts in-flight requests.
 */
public final class AdmissionController {

    /** Told once about a queued request's fate. */
    public interface Waiter {
        void admitted(AdmissionTicket ticket);

        void rejected(Rejection reason);
    }

    /** The result of {@link #admit}. */
    public sealed interface Decision permits Admitted, Rejected, Queued {
    }

    public record Admitted(AdmissionTicket ticket) implements Decision {
    }

    public record Rejected(Rejection reason) implements Decision {
    }

    /** Queued; {@code handle} cancels the wait ({@link #cancel}). */
    public record Queued(Object handle) implements Decision {
    }

    private final AdmissionConfig config;
    private final DelayScheduler scheduler;
    private final LongSupplier nanoTime;
    private final AdmissionObserver observer;
    private final TokenBucket bucket;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition idle = lock.newCondition();
    private final LinkedHashSet<Entry> queue = new LinkedHashSet<>();
    private int slotsInUse;
    private int inFlight;
    private volatile boolean draining;

    /**
     * @param scheduler timers for the queue timeout
     * @param nanoTime  clock of the rate limit and of queue wait times
     */
    public AdmissionController(AdmissionConfig config, DelayScheduler scheduler, LongSupplier nanoTime,
                               AdmissionObserver observer) {
        this.config = config;
        this.scheduler = scheduler;
        this.nanoTime = nanoTime;
        this.observer = observer;
        this.bucket = config.ratePerSecond() > 0 ? new TokenBucket(config.ratePerSecond(), nanoTime) : null;
    }

    public AdmissionConfig config() {
        return config;
    }

    /** Admits, rejects or queues a request (see the class comment). */
    public Decision admit(Waiter waiter) {
        if (draining) {
            observer.onRejected(Rejection.SHUTTING_DOWN);
            return new Rejected(Rejection.SHUTTING_DOWN);
        }
        if (bucket != null && !bucket.tryTake()) {
            observer.onRejected(Rejection.RATE_LIMITED);
            return new Rejected(Rejection.RATE_LIMITED);
        }
        Entry entry;
        lock.lock();
        try {
            if (!config.limited() || slotsInUse < config.maxConcurrent()) {
                if (config.limited()) {
                    slotsInUse++;
                }
                inFlight++;
                observer.onAdmitted(false, 0);
                return new Admitted(new AdmissionTicket(this));
            }
            if (queue.size() >= config.queueSize()) {
                observer.onRejected(Rejection.QUEUE_FULL);
                return new Rejected(Rejection.QUEUE_FULL);
            }
            entry = new Entry(waiter, nanoTime.getAsLong());
            queue.add(entry);
            entry.timer = scheduler.schedule(config.queueTimeout().toMillis(), () -> leave(entry, Rejection.QUEUE_TIMEOUT));
        } finally {
            lock.unlock();
        }
        return new Queued(entry);
    }

    /** The client of a queued request left: it leaves the queue ({@link Rejection#CLIENT_GONE}). */
    public void cancel(Object handle) {
        if (handle instanceof Entry entry) {
            leave(entry, Rejection.CLIENT_GONE);
        }
    }

    private void leave(Entry entry, Rejection reason) {
        lock.lock();
        try {
            if (!queue.remove(entry)) {
                return; // already admitted or gone
            }
        } finally {
            lock.unlock();
        }
        scheduler.cancel(entry.timer);
        observer.onRejected(reason);
        entry.waiter.rejected(reason);
    }

    /** Called by a ticket: hands the slot to the oldest waiter, or frees it. */
    void release() {
        Entry next = null;
        lock.lock();
        try {
            inFlight--;
            if (config.limited()) {
                Iterator<Entry> it = queue.iterator();
                if (it.hasNext()) {
                    next = it.next();
                    it.remove();
                    inFlight++; // the slot passes on; slotsInUse is unchanged
                } else {
                    slotsInUse--;
                }
            }
            if (inFlight == 0) {
                idle.signalAll();
            }
        } finally {
            lock.unlock();
        }
        if (next != null) {
            scheduler.cancel(next.timer);
            observer.onAdmitted(true, nanoTime.getAsLong() - next.queuedAtNanos);
            next.waiter.admitted(new AdmissionTicket(this));
        }
    }

    /**
     * Starts draining: every later {@link #admit} is rejected with {@link Rejection#SHUTTING_DOWN}, and so is every
     * request still queued (it has not started; in-flight requests continue).
     */
    public void startDraining() {
        draining = true;
        while (true) {
            Entry head;
            lock.lock();
            try {
                Iterator<Entry> it = queue.iterator();
                if (!it.hasNext()) {
                    return;
                }
                head = it.next();
            } finally {
                lock.unlock();
            }
            leave(head, Rejection.SHUTTING_DOWN);
        }
    }

    public boolean draining() {
        return draining;
    }

    /**
     * Blocks the calling thread (never an event loop) until no admitted request is in flight, or the timeout passes.
     *
     * @return true when idle
     */
    public boolean awaitIdle(Duration timeout) throws InterruptedException {
        long remaining = timeout.toNanos();
        lock.lock();
        try {
            while (inFlight > 0) {
                if (remaining <= 0) {
                    return false;
                }
                remaining = idle.awaitNanos(remaining);
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Admitted requests whose exchange has not completed. */
    public int inFlight() {
        lock.lock();
        try {
            return inFlight;
        } finally {
            lock.unlock();
        }
    }

    /** Requests waiting for a slot. */
    public int queued() {
        lock.lock();
        try {
            return queue.size();
        } finally {
            lock.unlock();
        }
    }

    /** Slots held (0 when unlimited). */
    public int slotsInUse() {
        lock.lock();
        try {
            return slotsInUse;
        } finally {
            lock.unlock();
        }
    }

    /** A queued request; identity equality, so the set is a FIFO with O(1) removal. */
    private static final class Entry {
        final Waiter waiter;
        final long queuedAtNanos;
        long timer;

        Entry(Waiter waiter, long queuedAtNanos) {
            this.waiter = waiter;
            this.queuedAtNanos = queuedAtNanos;
        }
    }
}
