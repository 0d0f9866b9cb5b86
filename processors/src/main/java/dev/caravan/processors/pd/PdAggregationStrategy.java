package dev.caravan.processors.pd;

import static dev.caravan.processors.CaravanExchangeProperties.REQUEST_ID;

import org.apache.camel.AggregationStrategy;
import org.apache.camel.Exchange;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Joins the P/D multicast's two legs ({@code aggregationStrategy: "#pdAggregation"}, with {@code parallelProcessing}
 * and {@code streaming} so legs are aggregated in the order they finish). SGLang's rules (docs/design/upstream.md,
 * "SGLang: P/D dispatch"):
 * <ul>
 *   <li>prefill is awaited first: the multicast completes only when both legs have ended, and a decode answer that
 *       arrives first is parked (its body unread) until prefill ends;</li>
 *   <li>a decode that ends first <em>with an error</em> is an early rejection: the prefill leg is cancelled at once
 *       (its connection closed, so the prefill engine stops) and the decode error is the answer;</li>
 *   <li>a prefill that fails (non-2xx or no response) cancels the decode leg at once — otherwise the decode engine
 *       would wait for KV that never comes until its waiting timeout (SGLang's default 300 s);</li>
 *   <li>when both have ended, {@link #onCompletion} stores the {@link PdVerdict} ({@code PdVerdict.PROPERTY}) that
 *       the relay acts on, and reports the legs it judges to their policies and breakers ({@link LegOutcomes}).</li>
 * </ul>
 * A leg's result is its exchange's body ({@link LegResult}); the legs' shared {@link PdDispatch} performs the
 * cancellations. Called on the client connection's event loop (where the legs complete). Stateless and thread-safe.
 */
public final class PdAggregationStrategy implements AggregationStrategy {

    private static final Logger LOG = LoggerFactory.getLogger(PdAggregationStrategy.class);

    private final PdMetrics metrics;
    private final LegOutcomes outcomes;

    public PdAggregationStrategy(PdMetrics metrics, LegOutcomes outcomes) {
        this.metrics = metrics;
        this.outcomes = outcomes;
    }

    @Override
    public Exchange aggregate(Exchange oldExchange, Exchange newExchange) {
        LegResult result = newExchange.getIn().getBody(LegResult.class);
        PdDispatch dispatch = PdDispatch.PROPERTY.get(newExchange);
        if (result == null || dispatch == null) {
            throw new IllegalStateException("pdAggregation joins the P/D legs: each leg's body must be a LegResult and "
                    + "its PdDispatch set (openPdDispatch before the multicast)");
        }
        boolean prefillPending = !dispatch.hasArrived(Leg.PREFILL);
        dispatch.arrived(result);
        if (!result.ok() && !result.cancelled()) {
            if (result.leg() == Leg.DECODE && prefillPending) {
                LOG.debug("Request {}: decode failed first ({}), aborting the paired prefill", requestId(newExchange),
                        result.describe());
                metrics.earlyRejection();
                dispatch.cancel(Leg.PREFILL, PdMetrics.DECODE_REJECTED);
            } else if (result.leg() == Leg.PREFILL && !earlyRejection(dispatch)) {
                LOG.debug("Request {}: prefill failed ({}), cancelling the paired decode", requestId(newExchange),
                        result.describe());
                dispatch.cancel(Leg.DECODE, PdMetrics.PREFILL_FAILED);
            }
        }
        return oldExchange == null ? newExchange : oldExchange;
    }

    @Override
    public void onCompletion(Exchange exchange, Exchange inputExchange) {
        if (exchange == null) {
            return;
        }
        PdDispatch dispatch = PdDispatch.PROPERTY.get(exchange);
        PdVerdict verdict = dispatch.conclude(outcomes);
        LOG.debug("Request {}: P/D verdict {} (prefill {}, decode {})", requestId(exchange), verdict.kind(),
                verdict.prefill().describe(), verdict.decode().describe());
        PdVerdict.PROPERTY.set(exchange, verdict);
        if (inputExchange != null) {
            PdVerdict.PROPERTY.set(inputExchange, verdict);
        }
    }

    /** Decode already ended with an error: its answer stands, so a late prefill failure must not cancel it. */
    private static boolean earlyRejection(PdDispatch dispatch) {
        LegResult decode = dispatch.result(Leg.DECODE);
        return decode != null && !decode.ok();
    }

    private static Object requestId(Exchange exchange) {
        return REQUEST_ID.get(exchange);
    }
}
