package dev.caravan.processors.pd;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.caravan.policies.Worker;
import dev.caravan.processors.forward.ForwardOutcomes;
import dev.caravan.processors.reliability.AttemptOutcome;

/**
 * How each leg of a P/D attempt went, for the selecting policy ({@code onRequestComplete}) and the listeners — the
 * per-worker circuit breakers ({@code WorkerBreakers.record}). The rules (SGLang's, docs/design/upstream.md,
 * "SGLang: P/D dispatch"), in the breakers' own terms ({@link AttemptOutcome}):
 * <ul>
 *   <li>a leg's response is judged by its status: 2xx/3xx success, 4xx and 503 neutral (the request's fault or the
 *       engine's back-pressure, never a reason to open a breaker), other 5xx failure; no response (refused, reset,
 *       timed out) is a failure;</li>
 *   <li>prefill is judged whenever it ended on its own; a prefill the gateway cancelled is not judged;</li>
 *   <li>decode is <em>not</em> judged when prefill failed first (it never had a chance) or when it was cancelled; an
 *       early rejection judges it by its response; a relayed decode is judged by how its stream ended (a 200 whose
 *       stream broke is a failure; a client that left is neutral).</li>
 * </ul>
 * Thread-safe.
 */
public final class LegOutcomes {

    private static final Logger LOG = LoggerFactory.getLogger(LegOutcomes.class);

    /** Told every judged leg; must be quick and must not block. */
    public interface Listener {
        void onLegOutcome(Leg leg, Worker worker, AttemptOutcome outcome);
    }

    private final List<Listener> listeners = new CopyOnWriteArrayList<>();

    public void addListener(Listener listener) {
        listeners.add(listener);
    }

    /**
     * Reports one leg to its policy (success unless {@link AttemptOutcome#FAILURE}) and every listener;
     * {@code outcome == null} means "not judged".
     */
    void report(Leg leg, PdPair.Side side, AttemptOutcome outcome) {
        if (outcome == null) {
            return;
        }
        try {
            side.policy().onRequestComplete(side.worker(), outcome != AttemptOutcome.FAILURE);
        } catch (RuntimeException e) {
            LOG.warn("Policy {} failed in onRequestComplete: {}", side.policy().name(), e.toString());
        }
        for (Listener l : listeners) {
            try {
                l.onLegOutcome(leg, side.worker(), outcome);
            } catch (RuntimeException e) {
                LOG.warn("Leg outcome listener failed: {}", e.toString());
            }
        }
    }

    /** The prefill leg's judgement, or null when it was cancelled. */
    static AttemptOutcome prefill(PdVerdict verdict) {
        return judge(verdict.prefill());
    }

    /**
     * The decode leg's judgement when the verdict alone decides it; null when it is not judged, or judged later, at the
     * end of its relayed response ({@link #decodeStream}) or when a retry discards it ({@link #decodeDiscarded}).
     */
    static AttemptOutcome decodeAtVerdict(PdVerdict verdict) {
        return verdict.kind() == PdVerdict.Kind.DECODE_FAILED ? judge(verdict.decode()) : null;
    }

    /** A relayed decode response: its status, then how the stream ended ({@link ForwardOutcomes}). */
    static AttemptOutcome decodeStream(int status, String outcome) {
        return AttemptOutcome.classify(outcome, status);
    }

    /** A decode response the gateway discarded unread because another attempt follows: judged by its status. */
    static AttemptOutcome decodeDiscarded(int status) {
        return AttemptOutcome.ofStatus(status);
    }

    private static AttemptOutcome judge(LegResult r) {
        return switch (r.kind()) {
            case RESPONSE -> AttemptOutcome.ofStatus(r.status());
            case TRANSPORT_ERROR, TIMEOUT, ATTEMPT_TIMEOUT -> AttemptOutcome.FAILURE;
            case CANCELLED -> null;
        };
    }
}
