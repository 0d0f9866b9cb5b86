package dev.caravan.bench.soak;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Every request of the soak by id: sent (with the replica it went to), then at most one end — answered, limited (429
 * {@code rate_limit_exceeded}: a tenant over its own limit, the contract working) or failed with a {@link Cause}. A
 * request without an end when the run's drain deadline passes is lost. Thread-safe: client threads record ends
 * concurrently; the first end of a request wins.
 */
final class Ledger {

    enum Outcome { ANSWERED, LIMITED, FAILED }

    /**
     * One request.
     *
     * @param id        the ledger's id (also sent as {@code X-Request-Id})
     * @param replica   the replica it was sent to
     * @param stream    whether it asked for a stream
     * @param slow      whether its client reads slowly (its latency is the client's; left out of the percentiles)
     * @param sentNanos when it was sent
     */
    record Sent(long id, int replica, boolean stream, boolean slow, long sentNanos) {
    }

    /**
     * How a request ended.
     *
     * @param outcome  answered, limited or failed
     * @param cause    the failure's cause (null unless failed)
     * @param detail   the status and error code, or the exception, of a failure
     * @param endNanos when it ended
     */
    record End(Outcome outcome, Cause cause, String detail, long endNanos) {
    }

    private final LongSupplier nanoClock;
    private final AtomicLong ids = new AtomicLong();
    private final Map<Long, Sent> sent = new ConcurrentHashMap<>();
    private final Map<Long, End> ends = new ConcurrentHashMap<>();

    /** @param nanoClock the time of sends and ends, in nanoseconds (System::nanoTime; the injections' clock too) */
    Ledger(LongSupplier nanoClock) {
        this.nanoClock = nanoClock;
    }

    Sent send(int replica, boolean stream, boolean slow) {
        Sent s = new Sent(ids.incrementAndGet(), replica, stream, slow, nanoClock.getAsLong());
        sent.put(s.id(), s);
        return s;
    }

    void answered(Sent s) {
        ends.putIfAbsent(s.id(), new End(Outcome.ANSWERED, null, null, nanoClock.getAsLong()));
    }

    void limited(Sent s) {
        ends.putIfAbsent(s.id(), new End(Outcome.LIMITED, null, null, nanoClock.getAsLong()));
    }

    void failed(Sent s, Cause cause, String detail) {
        ends.putIfAbsent(s.id(), new End(Outcome.FAILED, cause, detail, nanoClock.getAsLong()));
    }

    long sentCount() {
        return sent.size();
    }

    /** Requests sent that have no end yet. */
    long outstanding() {
        return sent.size() - ends.size();
    }

    /**
     * The tally: counts by outcome, failures by cause and whether each is attributed to one of {@code injections}, and
     * latencies of answered requests (but slow clients') inside and outside the fault windows.
     */
    Tally tally(List<Injection> injections, long graceNanos) {
        Tally t = new Tally();
        for (Sent s : sent.values()) {
            End e = ends.get(s.id());
            t.sent++;
            if (e == null) {
                t.lost++;
                continue;
            }
            switch (e.outcome()) {
                case ANSWERED -> {
                    t.answered++;
                    if (s.slow()) {
                        continue;
                    }
                    double ms = (e.endNanos() - s.sentNanos()) / 1e6;
                    boolean inside = injections.stream().anyMatch(i -> i.covers(s.sentNanos(), graceNanos)
                            || i.covers(e.endNanos(), graceNanos));
                    (inside ? t.latencyInsideMs : t.latencyOutsideMs).add(ms);
                }
                case LIMITED -> t.limited++;
                case FAILED -> {
                    t.failed++;
                    t.failedByCause.merge(e.cause(), 1L, Long::sum);
                    Injection to = attribute(s, e, injections, graceNanos);
                    if (to == null) {
                        t.unattributed.add(s.id() + " " + e.cause() + " " + e.detail() + " on replica "
                                + s.replica());
                    } else {
                        t.attributedByFault.merge(to.kind(), 1L, Long::sum);
                    }
                }
                default -> throw new IllegalStateException("unknown outcome " + e.outcome());
            }
        }
        return t;
    }

    private static Injection attribute(Sent s, End e, List<Injection> injections, long graceNanos) {
        for (Injection i : injections) {
            if (i.covers(e.endNanos(), graceNanos) && i.kind().causes().contains(e.cause())
                    && (!i.kind().replicaScoped() || i.target() == s.replica())) {
                return i;
            }
        }
        return null;
    }

    /** Counts of one tally; not thread-safe (built on one thread after the run). */
    static final class Tally {
        long sent;
        long answered;
        long limited;
        long failed;
        long lost;
        final Map<Cause, Long> failedByCause = new EnumMap<>(Cause.class);
        final Map<FaultKind, Long> attributedByFault = new EnumMap<>(FaultKind.class);
        final List<String> unattributed = new ArrayList<>();
        final List<Double> latencyInsideMs = new ArrayList<>();
        final List<Double> latencyOutsideMs = new ArrayList<>();

        static double p99(List<Double> values) {
            if (values.isEmpty()) {
                return Double.NaN;
            }
            List<Double> sorted = new ArrayList<>(values);
            sorted.sort(null);
            return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(0.99 * sorted.size()) - 1));
        }
    }
}
