package dev.caravan.processors.pd;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.buffer.Buffer;
import org.apache.camel.AsyncCallback;
import org.apache.camel.Exchange;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.caravan.processors.CaravanExchangeProperties;
import dev.caravan.processors.forward.UpstreamHeaders;

/**
 * Streams the decode engine's response to the client as it is produced — the P/D counterpart of the data plane's
 * {@code StreamRelay}, starting from a response head the decode leg already received (its body paused). No buffering
 * (unless a {@link BodyRewriter} must hold back an incomplete SSE event or the JSON body), no thread: every callback runs
 * on the client connection's event loop; the upstream is paused while the client's write queue is full.
 *
 * <p>Exactly one of these ends it, and {@link #finish} runs once: upstream end (outcome {@value #COMPLETED}); upstream
 * failure or request timeout while streaming ({@value #UPSTREAM_FAILED} / {@value #TIMEOUT}: the client connection is
 * reset, so a truncated stream never looks complete); the client leaving ({@value #CLIENT_CLOSED}: the decode
 * connection is reset, so the engine aborts the generation). {@code finish} releases the decode lease, records the
 * outcome on the exchange and the decode leg's judgement ({@link LegOutcomes}), and completes the exchange.
 */
final class DecodeRelay {

    static final String COMPLETED = "completed";
    static final String UPSTREAM_FAILED = "upstream_failed";
    static final String TIMEOUT = "timeout";
    static final String CLIENT_CLOSED = "client_closed";

    private static final Logger LOG = LoggerFactory.getLogger(DecodeRelay.class);

    private final Exchange exchange;
    private final AsyncCallback callback;
    private final PdDispatch dispatch;
    private final HttpClientResponse upstream;
    private final BodyRewriter rewriter;
    private final boolean decisionHeaders;
    private final LegOutcomes outcomes;
    private final Vertx vertx;
    private final HttpServerResponse client;
    private long timerId = -1;
    private boolean finished;

    DecodeRelay(Exchange exchange, AsyncCallback callback, PdDispatch dispatch, HttpClientResponse upstream,
                BodyRewriter rewriter, boolean decisionHeaders, LegOutcomes outcomes, Vertx vertx) {
        this.exchange = exchange;
        this.callback = callback;
        this.dispatch = dispatch;
        this.upstream = upstream;
        this.rewriter = rewriter;
        this.decisionHeaders = decisionHeaders;
        this.outcomes = outcomes;
        this.vertx = vertx;
        this.client = dispatch.client().response();
    }

    /** Runs on the dispatch's event loop. */
    void start() {
        dispatch.detachClient();
        exchange.setProperty(CaravanExchangeProperties.RESPONSE_STATUS, upstream.statusCode());
        if (client.closed()) {
            onClientClosed();
            return;
        }
        client.closeHandler(v -> onClientClosed());
        long remainingMs = Math.max(1, dispatch.remainingNanos() / 1_000_000);
        timerId = vertx.setTimer(remainingMs, id -> {
            timerId = -1;
            failWhileStreaming(TIMEOUT, null);
        });
        client.setStatusCode(upstream.statusCode());
        UpstreamHeaders.copyResponse(upstream.headers(), client.headers());
        if (rewriter != null) {
            client.headers().remove("content-length"); // the body changes length
        }
        decorate();
        if (!client.headers().contains("content-length")) {
            client.setChunked(true);
        }
        exchange.setProperty(CaravanExchangeProperties.RESPONSE_COMMITTED, true);
        Long start = exchange.getProperty(CaravanExchangeProperties.START_NANOS, Long.class);
        exchange.setProperty(CaravanExchangeProperties.TTFB_NANOS, System.nanoTime()
                - (start != null ? start : dispatch.startNanos()));
        client.writeHead();
        upstream.handler(chunk -> {
            Buffer out = rewriter == null ? chunk : rewriter.onChunk(chunk);
            if (out.length() > 0) {
                client.write(out);
            }
            if (client.writeQueueFull()) {
                upstream.pause();
                client.drainHandler(v -> upstream.resume());
            }
        });
        upstream.exceptionHandler(e -> failWhileStreaming(UPSTREAM_FAILED, e));
        upstream.endHandler(v -> {
            if (finished) {
                return;
            }
            finished = true;
            if (rewriter != null) {
                Buffer tail = rewriter.onEnd();
                if (tail.length() > 0) {
                    client.write(tail);
                }
            }
            client.end();
            finish(COMPLETED);
        });
        upstream.resume();
    }

    private void decorate() {
        String requestId = exchange.getProperty(CaravanExchangeProperties.REQUEST_ID, String.class);
        if (requestId != null && !client.headers().contains(UpstreamHeaders.REQUEST_ID)) {
            client.headers().set(UpstreamHeaders.REQUEST_ID, requestId);
        }
        if (decisionHeaders) {
            client.headers().set(RelayDecodeProcessor.WORKER_HEADER, dispatch.pair().workersHeader());
            client.headers().set(RelayDecodeProcessor.DECISION_HEADER, dispatch.pair().decisionsHeader());
        }
    }

    private void onClientClosed() {
        if (finished) {
            return;
        }
        finished = true;
        LOG.debug("Client left P/D request {}; cancelling the decode stream on {}", requestId(),
                dispatch.pair().decode().worker().url());
        upstream.request().reset();
        exchange.setProperty(CaravanExchangeProperties.RESPONSE_COMMITTED, true);
        exchange.setProperty(CaravanExchangeProperties.RESPONSE_STATUS, 499);
        finish(CLIENT_CLOSED);
    }

    private void failWhileStreaming(String outcome, Throwable cause) {
        if (finished) {
            return;
        }
        finished = true;
        LOG.warn("P/D request {} from decode {} broke while streaming ({}): {}", requestId(),
                dispatch.pair().decode().worker().url(), outcome, cause == null ? "request timeout" : PdLeg.describe(cause));
        upstream.request().reset();
        if (!client.ended()) {
            client.reset();
        }
        finish(outcome);
    }

    /** Every caller has set {@code finished} first, so this runs once. */
    private void finish(String outcome) {
        if (timerId >= 0) {
            vertx.cancelTimer(timerId);
            timerId = -1;
        }
        dispatch.pair().decode().lease().release();
        exchange.setProperty(CaravanExchangeProperties.OUTCOME, outcome);
        outcomes.report(Leg.DECODE, dispatch.pair().decode(), LegOutcomes.decodeStream(upstream.statusCode(), outcome));
        callback.done(false);
    }

    private String requestId() {
        return exchange.getProperty(CaravanExchangeProperties.REQUEST_ID, String.class);
    }
}
