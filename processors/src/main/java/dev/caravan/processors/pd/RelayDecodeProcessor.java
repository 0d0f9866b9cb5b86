package dev.caravan.processors.pd;

import java.util.function.IntPredicate;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientResponse;
import org.apache.camel.AsyncCallback;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.support.AsyncProcessorSupport;

import dev.caravan.policies.Worker;
import dev.caravan.processors.CaravanExchangeProperties;
import dev.caravan.processors.error.GatewayError;
import dev.caravan.processors.forward.ForwardOutcomes;
import dev.caravan.processors.forward.RelayTiming;
import dev.caravan.processors.forward.UpstreamClient;
import dev.caravan.processors.forward.UpstreamHeaders;
import dev.caravan.processors.forward.UsageSniffer;

/**
 * P/D route step {@code relayDecode}, after the legs: answers the client as the {@link PdVerdict} says.
 * <ul>
 *   <li>decode's response: streamed as produced by a {@link DecodeRelay} (asynchronous, no thread held); when logprobs
 *       were asked for and the prefill returned prompt logprobs, they are spliced in (per SSE event, or into the JSON
 *       body);</li>
 *   <li>prefill 4xx: prefill's response as is; prefill 5xx or no response: 502 {@code prefill_server_error}; decode
 *       without a response: 502 {@code decode_server_error} (exceptions for the route's error handler);</li>
 *   <li>client gone: nothing (status 499, outcome {@code client_closed}).</li>
 * </ul>
 * <b>Retries</b> (the attempt loop's {@code decideRetry} reads what this step leaves): {@code OUTCOME} uses the forward
 * step's vocabulary ({@link ForwardOutcomes}) and {@code WORKER} names the worker that failed the attempt, so the next
 * attempt selects a new pair without it. A retryable status (408, 429, 500, 502, 503, 504) that the retry steps hold
 * back ({@code HOLD_BACK_STATUSES}, absent on the last attempt) is not answered: the parked decode response is closed
 * unread and the outcome is {@code retryable_status}.
 *
 * <p>On success it records the prefill engine's token counts ({@code USAGE}, {@code WORKER} = the prefill worker: the
 * prompt and its cached part are prefill's work) for the token metrics. {@value #WORKER_HEADER}:
 * {@code prefill=URL; decode=URL}; {@value #DECISION_HEADER}: {@code prefill=policy:branch; decode=policy:branch}.
 *
 * <p>Reads {@code PD_VERDICT}, {@code PD_DISPATCH}, {@code PD_LOGPROBS}, {@code HOLD_BACK_STATUSES}. Writes
 * {@code RESPONSE_COMMITTED}, {@code RESPONSE_STATUS}, {@code TTFB_NANOS}, {@code OUTCOME}, {@code USAGE},
 * {@code WORKER}.
 */
public final class RelayDecodeProcessor extends AsyncProcessorSupport {

    public static final String WORKER_HEADER = "X-Caravan-Worker";
    public static final String DECISION_HEADER = "X-Caravan-Decision";

    private final RelayTiming timing;
    private final boolean decisionHeaders;
    private final LegOutcomes outcomes;

    public RelayDecodeProcessor(UpstreamClient upstream, boolean decisionHeaders, LegOutcomes outcomes) {
        this.timing = RelayTiming.of(upstream);
        this.decisionHeaders = decisionHeaders;
        this.outcomes = outcomes;
    }

    @Override
    public boolean process(Exchange exchange, AsyncCallback callback) {
        PdVerdict verdict = exchange.getProperty(CaravanExchangeProperties.PD_VERDICT, PdVerdict.class);
        PdDispatch dispatch = exchange.getProperty(CaravanExchangeProperties.PD_DISPATCH, PdDispatch.class);
        if (verdict == null || dispatch == null) {
            exchange.setException(new IllegalStateException("relayDecode needs the P/D legs' verdict before it"));
            callback.done(true);
            return true;
        }
        IntPredicate holdBack = exchange.getProperty(CaravanExchangeProperties.HOLD_BACK_STATUSES, IntPredicate.class);
        PdPair pair = dispatch.pair();
        LegResult prefill = verdict.prefill();
        LegResult decode = verdict.decode();
        switch (verdict.kind()) {
            case CLIENT_GONE -> {
                exchange.setProperty(CaravanExchangeProperties.RESPONSE_COMMITTED, true);
                exchange.setProperty(CaravanExchangeProperties.RESPONSE_STATUS, 499);
                exchange.setProperty(CaravanExchangeProperties.OUTCOME, ForwardOutcomes.CLIENT_CLOSED);
            }
            case PREFILL_REJECTED -> {
                if (held(holdBack, prefill.status())) {
                    failedAttempt(exchange, pair.prefill().worker(), ForwardOutcomes.RETRYABLE_STATUS, prefill.status());
                } else {
                    recordUsage(exchange, pair, prefill);
                    answerWithPrefill(exchange, dispatch, prefill);
                }
            }
            case PREFILL_FAILED -> {
                failedAttempt(exchange, pair.prefill().worker(), outcomeOf(prefill, holdBack), prefill.status());
                exchange.setException(GatewayError.PREFILL_FAILED.exception("prefill worker "
                        + pair.prefill().worker().url() + " failed: " + prefill.describe()));
            }
            case DECODE_FAILED -> {
                failedAttempt(exchange, pair.decode().worker(), outcomeOf(decode, holdBack), decode.status());
                exchange.setException(GatewayError.DECODE_FAILED.exception("decode worker "
                        + pair.decode().worker().url() + " failed: " + decode.describe()));
            }
            case DECODE_RESPONSE -> {
                if (held(holdBack, decode.status())) {
                    dispatch.cancel(Leg.DECODE, PdMetrics.RETRY); // close the unread answer; another pair follows
                    outcomes.report(Leg.DECODE, pair.decode(), LegOutcomes.decodeDiscarded(decode.status()));
                    failedAttempt(exchange, pair.decode().worker(), ForwardOutcomes.RETRYABLE_STATUS, decode.status());
                } else {
                    recordUsage(exchange, pair, prefill);
                    relay(exchange, callback, dispatch, verdict);
                    return false;
                }
            }
        }
        callback.done(true);
        return true;
    }

    private static boolean held(IntPredicate holdBack, int status) {
        return holdBack != null && holdBack.test(status);
    }

    /** The {@code OUTCOME} of a failed leg: held-back status, a plain answered status, no answer, or a timeout. */
    private static String outcomeOf(LegResult leg, IntPredicate holdBack) {
        return switch (leg.kind()) {
            case RESPONSE -> held(holdBack, leg.status()) ? ForwardOutcomes.RETRYABLE_STATUS : ForwardOutcomes.COMPLETED;
            case TIMEOUT -> ForwardOutcomes.TIMEOUT;
            case ATTEMPT_TIMEOUT -> ForwardOutcomes.ATTEMPT_TIMEOUT;
            default -> ForwardOutcomes.UPSTREAM_FAILED;
        };
    }

    /** What the retry decision reads: the worker to avoid next, how the attempt ended, the status if any. */
    private static void failedAttempt(Exchange exchange, Worker worker, String outcome, int status) {
        exchange.setProperty(CaravanExchangeProperties.WORKER, worker);
        exchange.setProperty(CaravanExchangeProperties.OUTCOME, outcome);
        if (status > 0) {
            exchange.setProperty(CaravanExchangeProperties.RESPONSE_STATUS, status);
        }
    }

    /** The prompt's token counts come from the engine that computed it. */
    private static void recordUsage(Exchange exchange, PdPair pair, LegResult prefill) {
        exchange.setProperty(CaravanExchangeProperties.WORKER, pair.prefill().worker());
        if (prefill.kind() == LegResult.Kind.RESPONSE && prefill.body() != null) {
            UsageSniffer sniffer = UsageSniffer.forContentType(prefill.headers().get("content-type"));
            sniffer.accept(prefill.body());
            exchange.setProperty(CaravanExchangeProperties.USAGE, sniffer.finish());
        }
    }

    private void relay(Exchange exchange, AsyncCallback callback, PdDispatch dispatch, PdVerdict verdict) {
        BodyRewriter chosen = exchange.getProperty(CaravanExchangeProperties.PD_LOGPROBS, false, Boolean.class)
                ? BodyRewriter.logprobSplicer(verdict.prefill(), verdict.decode().headers().get("content-type")) : null;
        dispatch.onContext(() -> {
            HttpClientResponse response = dispatch.takeDecodeResponse();
            new DecodeRelay(exchange, callback, dispatch, response, chosen, decisionHeaders, outcomes, timing).start();
        });
    }

    /** A 4xx from prefill goes back as the engine sent it (its status, content type and body). */
    private void answerWithPrefill(Exchange exchange, PdDispatch dispatch, LegResult prefill) {
        Message m = exchange.getMessage();
        m.setHeader(Exchange.HTTP_RESPONSE_CODE, prefill.status());
        String type = prefill.headers().get("content-type");
        if (type != null) {
            m.setHeader(Exchange.CONTENT_TYPE, type);
        }
        String requestId = exchange.getProperty(CaravanExchangeProperties.REQUEST_ID, String.class);
        if (requestId != null) {
            m.setHeader(UpstreamHeaders.REQUEST_ID, requestId);
        }
        if (decisionHeaders) {
            m.setHeader(WORKER_HEADER, dispatch.pair().workersHeader());
            m.setHeader(DECISION_HEADER, dispatch.pair().decisionsHeader());
        }
        m.setBody(prefill.body() == null ? Buffer.buffer() : prefill.body());
        exchange.setProperty(CaravanExchangeProperties.RESPONSE_STATUS, prefill.status());
        exchange.setProperty(CaravanExchangeProperties.OUTCOME, ForwardOutcomes.COMPLETED);
    }
}
