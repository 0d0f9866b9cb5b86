package dev.caravan.processors.pd;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.caravan.policies.Worker;

/**
 * How each leg of a P/D attempt went, for the selecting policy ({@code onRequestComplete}) and any other listener
 * (per-worker circuit breakers). SGLang's rules (sglang-gateway.md §5.4, §10 item 8):
 * <ul>
 *   <li>a 4xx is the request's fault, not the engine's: it counts as success (breaker-neutral);</li>
 *   <li>prefill is judged by its own response whenever it ended (5xx, transport error, timeout = failure); a prefill
 *       the gateway cancelled is not judged;</li>
 *   <li>decode is <em>not</em> judged when prefill failed first (it never had a chance), nor when the client left;
 *       an early rejection judges it by its response; a streamed decode is judged by how the stream ended (a 200
 *       whose stream broke is a failure).</li>
 * </ul>
 * Thread-safe.
 */
public final class LegOutcomes {

    private static final Logger LOG = LoggerFactory.getLogger(LegOutcomes.class);

    /** Told every judged leg; must not block. */
    public interface Listener {
        void onLegOutcome(Leg leg, Worker worker, boolean success);
    }

    private final List<Listener> listeners = new CopyOnWriteArrayList<>();

    public void addListener(Listener listener) {
        listeners.add(listener);
    }

    /** Reports one leg: to its policy and every listener; {@code success == null} means "not judged". */
    void report(Leg leg, PdPair.Side side, Boolean success) {
        if (success == null) {
            return;
        }
        try {
            side.policy().onRequestComplete(side.worker(), success);
        } catch (RuntimeException e) {
            LOG.warn("Policy {} failed in onRequestComplete: {}", side.policy().name(), e.toString());
        }
        for (Listener l : listeners) {
            try {
                l.onLegOutcome(leg, side.worker(), success);
            } catch (RuntimeException e) {
                LOG.warn("Leg outcome listener failed: {}", e.toString());
            }
        }
    }

    /** The prefill leg's judgement, or null when it was cancelled. */
    static Boolean prefill(PdVerdict verdict) {
        return judge(verdict.prefill());
    }

    /**
     * The decode leg's judgement when the verdict alone decides it (null: not judged, or judged at the end of the
     * stream by {@link #decodeStream}).
     */
    static Boolean decodeAtVerdict(PdVerdict verdict) {
        return switch (verdict.kind()) {
            case PREFILL_FAILED, PREFILL_REJECTED, CLIENT_GONE -> null;
            case DECODE_FAILED -> judge(verdict.decode());
            case DECODE_RESPONSE -> null;
        };
    }

    /** A relayed decode response: its status, then how the stream ended ({@link DecodeRelay} outcomes). */
    static Boolean decodeStream(int status, String outcome) {
        if (DecodeRelay.CLIENT_CLOSED.equals(outcome)) {
            return status >= 500 ? Boolean.FALSE : null;
        }
        return status < 500 && DecodeRelay.COMPLETED.equals(outcome);
    }

    private static Boolean judge(LegResult r) {
        return switch (r.kind()) {
            case RESPONSE -> r.status() < 500;
            case TRANSPORT_ERROR, TIMEOUT -> Boolean.FALSE;
            case CANCELLED -> null;
        };
    }
}
