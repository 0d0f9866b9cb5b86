package dev.caravan.processors.pd;

import static dev.caravan.processors.CaravanExchangeProperties.REQUEST_ID;
import static dev.caravan.processors.CaravanExchangeProperties.RESPONSE_STATUS;
import static dev.caravan.processors.CaravanExchangeProperties.START_NANOS;

import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientResponse;
import org.apache.camel.AsyncCallback;
import org.apache.camel.Exchange;

import dev.caravan.processors.forward.OutputMeter;
import dev.caravan.processors.forward.RelayCore;
import dev.caravan.processors.forward.RelayTiming;
import dev.caravan.processors.forward.UpstreamHeaders;
import dev.caravan.processors.forward.Usage;
import dev.caravan.processors.forward.UsageSniffer;

/**
 * Streams the decode engine's response to the client as it is produced, through the same {@link RelayCore} as the data
 * plane (limits, client close, failure while streaming, back-pressure, finishing once). What is particular to P/D:
 * the response head already arrived on the decode leg (its body paused), so the relay starts streaming at once; a
 * {@link BodyRewriter} may splice prefill's prompt logprobs into the body (holding back an incomplete SSE event or the
 * JSON body); the head gets {@code X-Request-Id}, the request's {@code RESPONSE_HEADERS} and the pair's decision
 * headers; decode's token counts are read as the body passes ({@link UsageSniffer}, an {@link OutputMeter} hearing the
 * output so far), and finishing records the request's {@code Usage.PROPERTY}: the prompt from prefill (what
 * {@code relayDecode} recorded), the output from decode; it releases the decode lease and reports the decode leg's
 * judgement ({@link LegOutcomes}). Runs on the dispatch's event loop.
 */
final class DecodeRelay implements RelayCore.Hooks {

    private final Exchange exchange;
    private final PdDispatch dispatch;
    private final HttpClientResponse upstream;
    private final BodyRewriter rewriter;
    private final boolean decisionHeaders;
    private final LegOutcomes outcomes;
    private final RelayCore core;
    private UsageSniffer sniffer;
    private OutputMeter meter;

    DecodeRelay(Exchange exchange, AsyncCallback callback, PdDispatch dispatch, HttpClientResponse upstream,
                BodyRewriter rewriter, boolean decisionHeaders, LegOutcomes outcomes, RelayTiming timing) {
        this.exchange = exchange;
        this.dispatch = dispatch;
        this.upstream = upstream;
        this.rewriter = rewriter;
        this.decisionHeaders = decisionHeaders;
        this.outcomes = outcomes;
        Long start = START_NANOS.get(exchange);
        this.core = new RelayCore(exchange, callback, dispatch.client().response(), timing,
                start != null ? start : dispatch.startNanos(), true, dispatch.pair().decode().worker().url(), this);
    }

    /** Runs on the dispatch's event loop. */
    void start() {
        dispatch.detachClient();
        RESPONSE_STATUS.set(exchange, upstream.statusCode());
        core.attach(upstream.request());
        if (core.begin()) {
            core.stream(upstream);
        }
    }

    @Override
    public void onHead(HttpClientResponse response, MultiMap headers) {
        sniffer = UsageSniffer.forContentType(response.getHeader("content-type"));
        meter = OutputMeter.PROPERTY.get(exchange);
        if (rewriter != null) {
            headers.remove("content-length"); // the body changes length
        }
        UpstreamHeaders.addResponseHeaders(exchange, headers);
        String requestId = REQUEST_ID.get(exchange);
        if (requestId != null && !headers.contains(UpstreamHeaders.REQUEST_ID)) {
            headers.set(UpstreamHeaders.REQUEST_ID, requestId);
        }
        if (decisionHeaders) {
            headers.set(RelayDecodeProcessor.WORKER_HEADER, dispatch.pair().workersHeader());
            headers.set(RelayDecodeProcessor.DECISION_HEADER, dispatch.pair().decisionsHeader());
        }
    }

    @Override
    public Buffer onChunk(Buffer chunk) {
        sniffer.accept(chunk); // decode's own bytes, before any splice
        if (meter != null) {
            meter.outputSoFar(sniffer.outputSoFar());
        }
        return rewriter == null ? chunk : rewriter.onChunk(chunk);
    }

    @Override
    public Buffer onEnd() {
        return rewriter == null ? Buffer.buffer() : rewriter.onEnd();
    }

    @Override
    public void finished(String outcome) {
        dispatch.pair().decode().lease().release();
        if (sniffer != null) {
            Usage.PROPERTY.set(exchange, Usage.promptAndOutput(Usage.PROPERTY.get(exchange), sniffer.finish()));
        }
        outcomes.report(Leg.DECODE, dispatch.pair().decode(), LegOutcomes.decodeStream(upstream.statusCode(), outcome));
    }
}
