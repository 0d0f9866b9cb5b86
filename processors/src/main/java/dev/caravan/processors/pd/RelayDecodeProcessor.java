package dev.caravan.processors.pd;

import static dev.caravan.processors.CaravanExchangeProperties.HOLD_BACK_STATUSES;
import static dev.caravan.processors.CaravanExchangeProperties.OUTCOME;
import static dev.caravan.processors.CaravanExchangeProperties.PD_LOGPROBS;
import static dev.caravan.processors.CaravanExchangeProperties.REQUEST_ID;
import static dev.caravan.processors.CaravanExchangeProperties.RESPONSE_COMMITTED;
import static dev.caravan.processors.CaravanExchangeProperties.RESPONSE_HEADERS;
import static dev.caravan.processors.CaravanExchangeProperties.RESPONSE_STATUS;
import static dev.caravan.processors.CaravanExchangeProperties.WORKER;

import java.util.Map;
import java.util.function.IntPredicate;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientResponse;
import org.apache.camel.AsyncCallback;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.support.AsyncProcessorSupport;

import dev.caravan.policies.Worker;
import dev.caravan.processors.error.GatewayError;
import dev.caravan.processors.forward.ForwardOutcomes;
import dev.caravan.processors.forward.RelayTiming;
import dev.caravan.processors.forward.UpstreamClient;
import dev.caravan.processors.forward.UpstreamHeaders;
import dev.caravan.processors.forward.Usage;
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
 * <p>On success it records the prefill engine's token counts ({@code Usage.PROPERTY}, {@code WORKER} = the prefill
 * worker: the prompt and its cached part are prefill's work) for the token metrics and the tenant rate limit; the
 * decode relay then replaces the output count with decode's ({@link Usage#promptAndOutput}), so one request is charged
 * its prompt once and its answer once, never prefill's one-token output on top. {@value #WORKER_HEADER}:
 * {@code prefill=URL; decode=URL}; {@value #DECISION_HEADER}: {@code prefill=policy:branch; decode=policy:branch}.
 *
 * <p>Reads {@code PdVerdict.PROPERTY}, {@code PdDispatch.PROPERTY}, {@code PD_LOGPROBS}, {@code HOLD_BACK_STATUSES}.
 * Writes {@code RESPONSE_COMMITTED}, {@code RESPONSE_STATUS}, {@code TTFB_NANOS}, {@code OUTCOME},
 * {@code Usage.PROPERTY}, {@code WORKER}.
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
        PdVerdict verdict = PdVerdict.PROPERTY.get(exchange);
        PdDispatch dispatch = PdDispatch.PROPERTY.get(exchange);
        if (verdict == null || dispatch == null) {
            exchange.setException(new IllegalStateException("relayDecode needs the P/D legs' verdict before it"));
            callback.done(true);
            return true;
        }
        IntPredicate holdBack = HOLD_BACK_STATUSES.get(exchange);
        PdPair pair = dispatch.pair();
        LegResult prefill = verdict.prefill();
        LegResult decode = verdict.decode();
        switch (verdict.kind()) {
            case CLIENT_GONE -> {
                RESPONSE_COMMITTED.set(exchange, true);
                RESPONSE_STATUS.set(exchange, 499);
                OUTCOME.set(exchange, ForwardOutcomes.CLIENT_CLOSED);
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
        WORKER.set(exchange, worker);
        OUTCOME.set(exchange, outcome);
        if (status > 0) {
            RESPONSE_STATUS.set(exchange, status);
        }
    }

    /** The prompt's token counts come from the engine that computed it. */
    private static void recordUsage(Exchange exchange, PdPair pair, LegResult prefill) {
        WORKER.set(exchange, pair.prefill().worker());
        if (prefill.kind() == LegResult.Kind.RESPONSE && prefill.body() != null) {
            UsageSniffer sniffer = UsageSniffer.forContentType(prefill.headers().get("content-type"));
            sniffer.accept(prefill.body());
            Usage.PROPERTY.set(exchange, sniffer.finish());
        }
    }

    private void relay(Exchange exchange, AsyncCallback callback, PdDispatch dispatch, PdVerdict verdict) {
        BodyRewriter chosen = PD_LOGPROBS.get(exchange, false)
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
        Map<String, String> always = RESPONSE_HEADERS.get(exchange);
        if (always != null) {
            always.forEach(m::setHeader);
        }
        String requestId = REQUEST_ID.get(exchange);
        if (requestId != null) {
            m.setHeader(UpstreamHeaders.REQUEST_ID, requestId);
        }
        if (decisionHeaders) {
            m.setHeader(WORKER_HEADER, dispatch.pair().workersHeader());
            m.setHeader(DECISION_HEADER, dispatch.pair().decisionsHeader());
        }
        m.setBody(prefill.body() == null ? Buffer.buffer() : prefill.body());
        RESPONSE_STATUS.set(exchange, prefill.status());
        OUTCOME.set(exchange, ForwardOutcomes.COMPLETED);
    }
}
