package dev.caravan.processors.admission;

import java.time.Duration;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

import dev.caravan.processors.time.DelayScheduler;

/**
 * Admission control for inference requests: an optional rate limit, a concurrency limit with a bounded queue, the
 * in-flight count graceful shutdown waits on, and the draining switch.
 *
 * <p>{@link #admit} decides at once when it can — {@link Admitted} (a ticket), {@link Rejected} (rate limited, queue
 * full, draining) — and otherwise queues the request and returns {@link Queued}; the {@link Waiter} is then called exactly
 * once, later: with a ticket when a slot is handed over by {@link AdmissionTicket#release()} (no barging: a released slot
 * goes to the queue's next request — {@link FairQueue}: strict priority between classes, the tenant with the fewest
 * tokens served within one, FIFO for one tenant), or with {@link Rejection#QUEUE_TIMEOUT} (after the class's queue
 * timeout, else {@code --queue-timeout-secs}) from a
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
    private final FairQueue queue = new FairQueue();
    private long seq;
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

    /** Admits, rejects or queues a request of {@link FlowKey#DEFAULT} that costs nothing (see the class comment). */
    public Decision admit(Waiter waiter) {
        return admit(waiter, FlowKey.DEFAULT, 0);
    }

    /**
     * Admits, rejects or queues a request (see the class comment).
     *
     * @param key  its tenant and class
     * @param cost the prompt tokens it is expected to cost, charged to its tenant's fair share when admitted
     */
    public Decision admit(Waiter waiter, FlowKey key, long cost) {
        if (draining) {
            observer.onRejected(key, Rejection.SHUTTING_DOWN);
            return new Rejected(Rejection.SHUTTING_DOWN);
        }
        if (bucket != null && !bucket.tryTake()) {
            observer.onRejected(key, Rejection.RATE_LIMITED);
            return new Rejected(Rejection.RATE_LIMITED);
        }
        FairQueue.Entry entry;
        lock.lock();
        try {
            if (!config.limited() || slotsInUse < config.maxConcurrent()) {
                if (config.limited()) {
                    slotsInUse++;
                }
                inFlight++;
                queue.charge(key.tenant(), cost);
                observer.onAdmitted(key, false, 0);
                return new Admitted(new AdmissionTicket(this));
            }
            if (queue.size() >= config.queueSize()) {
                observer.onRejected(key, Rejection.QUEUE_FULL);
                return new Rejected(Rejection.QUEUE_FULL);
            }
            entry = new FairQueue.Entry(waiter, key, cost, nanoTime.getAsLong(), seq++);
            queue.add(entry);
            Duration timeout = key.queueTimeout() != null ? key.queueTimeout() : config.queueTimeout();
            entry.timer = scheduler.schedule(timeout.toMillis(), () -> leave(entry, Rejection.QUEUE_TIMEOUT));
        } finally {
            lock.unlock();
        }
        return new Queued(entry);
    }

    /** The client of a queued request left: it leaves the queue ({@link Rejection#CLIENT_GONE}). */
    public void cancel(Object handle) {
        if (handle instanceof FairQueue.Entry entry) {
            leave(entry, Rejection.CLIENT_GONE);
        }
    }

    /**
     * Charges tokens a tenant was served after admission — its output tokens, and the difference between its prompt's
     * real and expected size — to its fair share.
     */
    public void charge(String tenant, long tokens) {
        lock.lock();
        try {
            queue.charge(tenant, tokens);
        } finally {
            lock.unlock();
        }
    }

    /** The tokens a tenant has been served, as its fair share counts them (its virtual token counter). */
    public long served(String tenant) {
        lock.lock();
        try {
            return queue.counter(tenant);
        } finally {
            lock.unlock();
        }
    }

    private void leave(FairQueue.Entry entry, Rejection reason) {
        lock.lock();
        try {
            if (!queue.remove(entry)) {
                return; // already admitted or gone
            }
        } finally {
            lock.unlock();
        }
        entry.timer.cancel();
        observer.onRejected(entry.key, reason);
        entry.waiter.rejected(reason);
    }

    /** Called by a ticket: hands the slot to the queue's next request, or frees it. */
    void release() {
        FairQueue.Entry next = null;
        lock.lock();
        try {
            inFlight--;
            if (config.limited()) {
                next = queue.poll();
                if (next != null) {
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
            next.timer.cancel();
            observer.onAdmitted(next.key, true, nanoTime.getAsLong() - next.queuedAtNanos);
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
            FairQueue.Entry head;
            lock.lock();
            try {
                head = queue.any();
                if (head == null) {
                    return;
                }
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
}
