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
import dev.caravan.processors.forward.ClientStreams;
import dev.caravan.processors.forward.ForwardOutcomes;
import dev.caravan.processors.forward.UpstreamHeaders;

/**
 * Streams the decode engine's response to the client as it is produced — the P/D counterpart of the data plane's
 * {@code StreamRelay}, starting from a response head the decode leg already received (its body paused). No buffering
 * (unless a {@link BodyRewriter} must hold back an incomplete SSE event or the JSON body), no thread: every callback runs
 * on the client connection's event loop; the upstream is paused while the client's write queue is full.
 *
 * <p>Exactly one of these ends it, and {@link #finish} runs once: upstream end (outcome {@code completed}); upstream
 * failure while streaming ({@code upstream_failed}: the client connection is reset, so a truncated stream never looks
 * complete); the request's end-to-end deadline or the stream idle limit ({@code timeout} / {@code idle_timeout}: an
 * SSE stream gets a final error event, another body a reset); the client leaving ({@code client_closed}: the decode
 * connection is reset, so the engine aborts the generation). {@code finish} releases the decode lease, records the
 * outcome on the exchange and the decode leg's judgement ({@link LegOutcomes}), and completes the exchange.
 */
final class DecodeRelay {

    static final String COMPLETED = ForwardOutcomes.COMPLETED;
    static final String UPSTREAM_FAILED = ForwardOutcomes.UPSTREAM_FAILED;
    static final String TIMEOUT = ForwardOutcomes.TIMEOUT;
    static final String IDLE_TIMEOUT = ForwardOutcomes.IDLE_TIMEOUT;
    static final String CLIENT_CLOSED = ForwardOutcomes.CLIENT_CLOSED;

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
    private final long idleNanos;
    private long timerId = -1;
    private long lastActivityNanos;
    private boolean finished;

    DecodeRelay(Exchange exchange, AsyncCallback callback, PdDispatch dispatch, HttpClientResponse upstream,
                BodyRewriter rewriter, boolean decisionHeaders, LegOutcomes outcomes, Vertx vertx,
                long upstreamIdleNanos) {
        this.exchange = exchange;
        this.callback = callback;
        this.dispatch = dispatch;
        this.upstream = upstream;
        this.rewriter = rewriter;
        this.decisionHeaders = decisionHeaders;
        this.outcomes = outcomes;
        this.vertx = vertx;
        this.client = dispatch.client().response();
        this.idleNanos = upstreamIdleNanos;
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
        lastActivityNanos = System.nanoTime();
        armTimer();
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
            lastActivityNanos = System.nanoTime();
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

    /** One timer for both limits: the request's end-to-end deadline and the longest silence between chunks. */
    private void armTimer() {
        long now = System.nanoTime();
        long due = dispatch.deadlineNanos();
        if (idleNanos > 0) {
            due = Math.min(due, lastActivityNanos + idleNanos);
        }
        timerId = vertx.setTimer(Math.max(1, (due - now) / 1_000_000), id -> onTimer());
    }

    private void onTimer() {
        timerId = -1;
        if (finished) {
            return;
        }
        long now = System.nanoTime();
        if (now - dispatch.deadlineNanos() >= 0) {
            endOnTimeout(TIMEOUT, "request timeout passed");
        } else if (idleNanos > 0 && now - lastActivityNanos >= idleNanos) {
            endOnTimeout(IDLE_TIMEOUT, "decode sent nothing for " + idleNanos / 1_000_000_000 + " s");
        } else {
            armTimer();
        }
    }

    /** A limit passed while streaming: cancel the decode stream and tell the client ({@link ClientStreams}). */
    private void endOnTimeout(String outcome, String reason) {
        finished = true;
        LOG.warn("P/D request {} from decode {} ended while streaming ({}): {}", requestId(),
                dispatch.pair().decode().worker().url(), outcome, reason);
        upstream.request().reset();
        ClientStreams.endOnTimeout(client, reason);
        finish(outcome);
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
        ClientStreams.markClientClosed(exchange);
        finish(CLIENT_CLOSED);
    }

    private void failWhileStreaming(String outcome, Throwable cause) {
        if (finished) {
            return;
        }
        finished = true;
        LOG.warn("P/D request {} from decode {} broke while streaming ({}): {}", requestId(),
                dispatch.pair().decode().worker().url(), outcome, PdLeg.describe(cause));
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
