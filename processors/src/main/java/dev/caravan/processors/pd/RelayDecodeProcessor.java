package dev.caravan.processors.pd;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientResponse;
import org.apache.camel.AsyncCallback;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.support.AsyncProcessorSupport;

import dev.caravan.processors.CaravanExchangeProperties;
import dev.caravan.processors.error.GatewayError;
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
 * Also records the prefill engine's token counts ({@code USAGE}, {@code WORKER} = the prefill worker: the prompt and
 * its cached part are prefill's work) for the token metrics. {@value #WORKER_HEADER}: {@code prefill=URL; decode=URL};
 * {@value #DECISION_HEADER}: {@code prefill=policy:branch; decode=policy:branch}.
 *
 * <p>Reads {@code PD_VERDICT}, {@code PD_DISPATCH}, {@code PD_LOGPROBS}. Writes {@code RESPONSE_COMMITTED},
 * {@code RESPONSE_STATUS}, {@code TTFB_NANOS}, {@code OUTCOME}, {@code USAGE}, {@code WORKER}.
 */
public final class RelayDecodeProcessor extends AsyncProcessorSupport {

    public static final String WORKER_HEADER = "X-Caravan-Worker";
    public static final String DECISION_HEADER = "X-Caravan-Decision";

    private final Vertx vertx;
    private final boolean decisionHeaders;
    private final LegOutcomes outcomes;

    public RelayDecodeProcessor(Vertx vertx, boolean decisionHeaders, LegOutcomes outcomes) {
        this.vertx = vertx;
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
        PdPair pair = dispatch.pair();
        exchange.setProperty(CaravanExchangeProperties.WORKER, pair.prefill().worker());
        LegResult prefill = verdict.prefill();
        if (prefill.kind() == LegResult.Kind.RESPONSE && prefill.body() != null) {
            UsageSniffer sniffer = UsageSniffer.forContentType(prefill.headers().get("content-type"));
            sniffer.accept(prefill.body());
            exchange.setProperty(CaravanExchangeProperties.USAGE, sniffer.finish());
        }
        String prefillUrl = pair.prefill().worker().url();
        String decodeUrl = pair.decode().worker().url();
        switch (verdict.kind()) {
            case CLIENT_GONE -> {
                exchange.setProperty(CaravanExchangeProperties.RESPONSE_COMMITTED, true);
                exchange.setProperty(CaravanExchangeProperties.RESPONSE_STATUS, 499);
                exchange.setProperty(CaravanExchangeProperties.OUTCOME, DecodeRelay.CLIENT_CLOSED);
            }
            case PREFILL_REJECTED -> answerWithPrefill(exchange, dispatch, prefill);
            case PREFILL_FAILED -> exchange.setException(GatewayError.PREFILL_FAILED.exception(
                    "prefill worker " + prefillUrl + " failed: " + prefill.describe()));
            case DECODE_FAILED -> exchange.setException(GatewayError.DECODE_FAILED.exception(
                    "decode worker " + decodeUrl + " failed: " + verdict.decode().describe()));
            case DECODE_RESPONSE -> {
                relay(exchange, callback, dispatch, verdict);
                return false;
            }
        }
        callback.done(true);
        return true;
    }

    private void relay(Exchange exchange, AsyncCallback callback, PdDispatch dispatch, PdVerdict verdict) {
        BodyRewriter rewriter = null;
        if (exchange.getProperty(CaravanExchangeProperties.PD_LOGPROBS, false, Boolean.class)
                && verdict.prefill().kind() == LegResult.Kind.RESPONSE) {
            PrefillLogprobs logprobs = PrefillLogprobs.read(verdict.prefill().body());
            String type = verdict.decode().headers().get("content-type");
            if (!logprobs.isEmpty()) {
                rewriter = type != null && type.contains("event-stream") ? new SseLogprobSplicer(logprobs)
                        : new JsonLogprobSplicer(logprobs);
            }
        }
        BodyRewriter chosen = rewriter;
        dispatch.onContext(() -> {
            HttpClientResponse response = dispatch.takeDecodeResponse();
            new DecodeRelay(exchange, callback, dispatch, response, chosen, decisionHeaders, outcomes, vertx).start();
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
    }
}
