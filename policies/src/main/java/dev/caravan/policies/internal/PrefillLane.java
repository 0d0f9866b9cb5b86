package dev.caravan.policies.internal;

import java.util.ArrayDeque;
import java.util.Iterator;

/**
 * One worker's pending prefills as the router saw them ({@link PrefillBacklog}): the requests it was sent that have not
 * produced a first token, in the order sent, each with the prompt characters its tree did not hold. Engines prefill in
 * arrival order, so the oldest is the one in progress: it started when it was sent or when the one before it produced
 * its first token, whichever is later. Each first token of the request at the head gives a sample of the worker's
 * prefill speed ({@code chars / (firstToken - started)}, averaged exponentially), and {@link #remaining} credits the
 * head with the work done since it started at that speed, so a long prefill nearly done no longer counts whole. Before
 * the first sample nothing is credited. All on the policy's clock; synchronized (a handful of entries, at most
 * {@value #MAX_PENDING}).
 */
final class PrefillLane {

    /**
     * At most this many pending entries: a caller that never reports first tokens nor releases leases (a benchmark
     * loop) drops the oldest instead of growing without bound. Far above any engine's running-request limit.
     */
    static final int MAX_PENDING = 4_096;

    /** Weight of a new speed sample. */
    private static final double ALPHA = 0.2;

    private final ArrayDeque<Entry> queue = new ArrayDeque<>();
    private long lastFirstToken = Long.MIN_VALUE;
    /** Characters per nanosecond, 0 before the first sample. */
    private double speed;
    private long total;

    private static final class Entry {
        final long sent;
        final long chars;

        Entry(long sent, long chars) {
            this.sent = sent;
            this.chars = chars;
        }
    }

    /** Adds a request sent at {@code now} with {@code chars} uncached; the returned token ends it ({@link #end}). */
    synchronized Object add(long now, long chars) {
        Entry e = new Entry(now, chars);
        if (queue.size() >= MAX_PENDING) {
            total -= queue.pollFirst().chars;
        }
        queue.addLast(e);
        total += chars;
        return e;
    }

    /** The request {@code token} produced its first token (or ended) at {@code now}; later calls do nothing. */
    synchronized void end(Object token, long now) {
        Entry head = queue.peekFirst();
        if (head == token) {
            queue.pollFirst();
            long took = now - Math.max(head.sent, lastFirstToken);
            if (took > 0 && head.chars > 0) {
                double sample = (double) head.chars / took;
                speed = speed == 0 ? sample : (1 - ALPHA) * speed + ALPHA * sample;
            }
            lastFirstToken = Math.max(lastFirstToken, now);
        } else if (!removeFromMiddle(token)) {
            return;
        }
        total -= ((Entry) token).chars;
    }

    private boolean removeFromMiddle(Object token) {
        for (Iterator<Entry> it = queue.iterator(); it.hasNext(); ) {
            if (it.next() == token) {
                it.remove();
                return true;
            }
        }
        return false;
    }

    /** The characters still to prefill at {@code now}: every pending one, less the head's estimated progress. */
    synchronized long remaining(long now) {
        Entry head = queue.peekFirst();
        if (head == null) {
            return 0;
        }
        long started = Math.max(head.sent, lastFirstToken);
        long done = speed == 0 || now <= started ? 0 : (long) Math.min(head.chars, speed * (now - started));
        return total - done;
    }

    /** Characters per second of the worker's prefills so far, 0 before the first sample. */
    synchronized double charsPerSecond() {
        return speed * 1e9;
    }
}
