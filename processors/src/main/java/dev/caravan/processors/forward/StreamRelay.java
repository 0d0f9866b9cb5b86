package dev.caravan.processors.forward;

import java.util.function.IntPredicate;

import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.RequestOptions;
import org.apache.camel.AsyncCallback;
import org.apache.camel.Exchange;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerLease;
import dev.caravan.processors.CaravanExchangeProperties;
import dev.caravan.processors.error.GatewayError;

/**
 * One forwarded request: sends it to the worker and pipes the response to the client as it arrives.
 *
 * <p>States: <i>sending</i> (waiting for a pooled connection and the response head) → <i>streaming</i> (head written to
 * the client; each upstream chunk is written as it arrives, pausing the upstream while the client's write queue is full)
 * → <i>finished</i>. Exactly one of these ends it, and {@link #finish} runs once:
 * <ul>
 *   <li>upstream end → client response ended, outcome {@code completed};</li>
 *   <li>upstream failure before the head → exchange exception 502 (504 on timeout) for the route's error handler;</li>
 *   <li>upstream failure while streaming → client connection reset (a truncated stream must not look complete),
 *       outcome {@code upstream_failed};</li>
 *   <li>end-to-end deadline ({@code --request-timeout-secs}, counted from the request's arrival, so queueing and
 *       earlier attempts use it up) or idle limit ({@code --stream-idle-timeout-secs}: nothing from the worker since the
 *       last chunk, or since sending a streamed request) or, for a non-streamed request, the attempt limit
 *       ({@code --non-stream-attempt-timeout-secs}: no response head since the attempt started) → before the head a
 *       504 exception (outcome {@code timeout} / {@code idle_timeout} / {@code attempt_timeout}); while streaming an
 *       SSE stream ends with a final error event, other bodies are reset;</li>
 *   <li>a status the retry step asked to hold back ({@code HOLD_BACK_STATUSES}) → nothing written, upstream reset,
 *       outcome {@code retryable_status};</li>
 *   <li>client gone (connection closed before the response ended) → upstream request reset, which closes the upstream
 *       connection so the engine aborts the generation; outcome {@code client_closed}, status 499.</li>
 * </ul>
 * {@link #finish} releases the worker lease, records TTFB, usage and outcome on the exchange, reports the attempt to the
 * forward step's {@link ForwardAttemptListener} (the circuit breakers), and completes the Camel exchange through the
 * callback. Threading: every callback runs on the client connection's event loop (the relay is
 * started there and Vert.x dispatches client and timer events to the caller's context), so the state needs no locks.
 */
final class StreamRelay {

    private static final Logger LOG = LoggerFactory.getLogger(StreamRelay.class);

    private final ForwardStreamProcessor owner;
    private final Exchange exchange;
    private final AsyncCallback callback;
    private final HttpServerResponse client;
    private final Worker worker;
    private final WorkerLease lease;
    private final long startNanos;

    private final long deadlineNanos;
    private final long idleNanos;
    private final boolean idleBeforeHead;
    /** When a non-streamed attempt without a response head fails ({@link System#nanoTime()} scale); unused if 0 limit. */
    private final long headDueNanos;
    private final boolean headLimited;

    private HttpClientRequest upstreamRequest;
    private long timerId = -1;
    private long lastActivityNanos;
    private boolean streaming;
    private boolean finished;
    private boolean clientGone;
    private UsageSniffer sniffer;

    StreamRelay(ForwardStreamProcessor owner, Exchange exchange, AsyncCallback callback, HttpServerResponse client,
                Worker worker, WorkerLease lease, long startNanos) {
        this.owner = owner;
        this.exchange = exchange;
        this.callback = callback;
        this.client = client;
        this.worker = worker;
        this.lease = lease;
        this.startNanos = startNanos;
        this.deadlineNanos = startNanos + owner.upstream().requestTimeout().toNanos();
        this.idleNanos = owner.upstream().idleTimeout().toNanos();
        // Engines send a streamed response's head early; a non-streamed one only when the generation is done, so
        // silence before its head is normal.
        this.idleBeforeHead = exchange.getProperty(CaravanExchangeProperties.STREAM, false, Boolean.class);
        // ...so a non-streamed attempt gets its own limit instead: long enough for a whole generation. One not shorter
        // than the end-to-end timeout can never pass first (and would overflow the nanoTime arithmetic when huge).
        long attemptNanos = owner.upstream().nonStreamAttemptTimeout().toNanos();
        this.headLimited = !idleBeforeHead && attemptNanos > 0
                && attemptNanos < owner.upstream().requestTimeout().toNanos();
        this.headDueNanos = System.nanoTime() + attemptNanos;
    }

    void start(String path, MultiMap headers, Buffer body) {
        if (client.closed()) {
            onClientClosed();
            return;
        }
        client.closeHandler(v -> onClientClosed());
        lastActivityNanos = System.nanoTime();
        armTimer();
        UpstreamClient.Target target = owner.upstream().target(worker.url());
        RequestOptions options = new RequestOptions()
                .setMethod(HttpMethod.POST)
                .setHost(target.host())
                .setPort(target.port())
                .setSsl(target.ssl())
                .setURI(target.pathPrefix() + path)
                .setHeaders(headers);
        owner.upstream().client().request(options).onComplete(ar -> {
            if (ar.failed()) {
                failBeforeHead(GatewayError.UPSTREAM_FAILED, ar.cause());
                return;
            }
            upstreamRequest = ar.result();
            if (finished) {
                upstreamRequest.reset(); // the client left while we waited for a connection
                return;
            }
            upstreamRequest.send(body).onComplete(sent -> {
                if (sent.failed()) {
                    failBeforeHead(GatewayError.UPSTREAM_FAILED, sent.cause());
                } else {
                    onHead(sent.result());
                }
            });
        });
    }

    private void onHead(HttpClientResponse upstream) {
        if (finished) {
            upstream.request().reset();
            return;
        }
        IntPredicate holdBack = exchange.getProperty(CaravanExchangeProperties.HOLD_BACK_STATUSES, IntPredicate.class);
        if (holdBack != null && holdBack.test(upstream.statusCode())) {
            discard(upstream);
            return;
        }
        streaming = true;
        lastActivityNanos = System.nanoTime();
        exchange.setProperty(CaravanExchangeProperties.RESPONSE_COMMITTED, true);
        exchange.setProperty(CaravanExchangeProperties.RESPONSE_STATUS, upstream.statusCode());
        sniffer = UsageSniffer.forContentType(upstream.getHeader("content-type"));
        client.setStatusCode(upstream.statusCode());
        UpstreamHeaders.copyResponse(upstream.headers(), client.headers());
        owner.decorate(exchange, client.headers());
        if (!client.headers().contains("content-length")) {
            client.setChunked(true);
        }
        exchange.setProperty(CaravanExchangeProperties.TTFB_NANOS, System.nanoTime() - startNanos);
        client.writeHead();
        upstream.handler(chunk -> {
            lastActivityNanos = System.nanoTime();
            sniffer.accept(chunk);
            client.write(chunk);
            if (client.writeQueueFull()) {
                upstream.pause();
                client.drainHandler(v -> upstream.resume());
            }
        });
        upstream.exceptionHandler(e -> failWhileStreaming(ForwardOutcomes.UPSTREAM_FAILED, e));
        upstream.endHandler(v -> {
            if (!finished) {
                finished = true;
                client.end();
                finish(ForwardOutcomes.COMPLETED);
            }
        });
    }

    /**
     * The worker answered a status another attempt will retry: nothing reaches the client; the connection is reset
     * rather than drained (error bodies are small, but a misbehaving worker's need not be).
     */
    private void discard(HttpClientResponse upstream) {
        finished = true;
        exchange.setProperty(CaravanExchangeProperties.RESPONSE_STATUS, upstream.statusCode());
        LOG.debug("Request {}: {} answered {}; another attempt follows", requestId(), worker.url(),
                upstream.statusCode());
        upstream.request().reset();
        finish(ForwardOutcomes.RETRYABLE_STATUS);
    }

    /**
     * One timer per relay for all limits: it fires at the earliest of the end-to-end deadline, the idle limit after the
     * last activity and (non-streamed, before the head) the attempt limit, and re-arms itself if data arrived meanwhile
     * — so chunks never touch the timer.
     */
    private void armTimer() {
        long now = System.nanoTime();
        long due = deadlineNanos;
        if (idleNanos > 0 && (streaming || idleBeforeHead)) {
            due = earlier(due, lastActivityNanos + idleNanos);
        }
        if (headLimited && !streaming) {
            due = earlier(due, headDueNanos);
        }
        long delayMs = Math.max(1, (due - now + 999_999) / 1_000_000);
        timerId = owner.upstream().vertx().setTimer(delayMs, id -> onTimer());
    }

    private void onTimer() {
        timerId = -1;
        if (finished) {
            return;
        }
        long now = System.nanoTime();
        String outcome;
        if (now - deadlineNanos >= 0) {
            outcome = ForwardOutcomes.TIMEOUT;
        } else if (idleNanos > 0 && (streaming || idleBeforeHead) && now - lastActivityNanos >= idleNanos) {
            outcome = ForwardOutcomes.IDLE_TIMEOUT;
        } else if (headLimited && !streaming && now - headDueNanos >= 0) {
            outcome = ForwardOutcomes.ATTEMPT_TIMEOUT;
        } else {
            armTimer();
            return;
        }
        if (streaming) {
            endStreamOnTimeout(outcome);
        } else {
            failBeforeHead(GatewayError.UPSTREAM_TIMEOUT, outcome);
        }
    }

    /** A limit passed while streaming: cancel the upstream and tell the client ({@link ClientStreams}). */
    private void endStreamOnTimeout(String outcome) {
        finished = true;
        String reason = outcome.equals(ForwardOutcomes.TIMEOUT)
                ? "request exceeded " + owner.upstream().requestTimeout().toSeconds() + " s"
                : "worker sent nothing for " + owner.upstream().idleTimeout().toSeconds() + " s";
        LOG.warn("Request {} to {} ended while streaming ({}): {}", requestId(), worker.url(), outcome, reason);
        if (upstreamRequest != null) {
            upstreamRequest.reset();
        }
        if (!clientGone) {
            ClientStreams.endOnTimeout(client, reason);
        }
        finish(outcome);
    }

    private void onClientClosed() {
        if (finished) {
            return;
        }
        finished = true;
        clientGone = true;
        LOG.debug("Client left request {} on {}; cancelling upstream", requestId(), worker.url());
        if (upstreamRequest != null) {
            upstreamRequest.reset();
        }
        ClientStreams.markClientClosed(exchange);
        finish(ForwardOutcomes.CLIENT_CLOSED);
    }

    private void failBeforeHead(GatewayError error, Throwable cause) {
        failBeforeHead(error, cause, null);
    }

    private void failBeforeHead(GatewayError error, String timeoutOutcome) {
        failBeforeHead(error, null, timeoutOutcome);
    }

    private void failBeforeHead(GatewayError error, Throwable cause, String timeoutOutcome) {
        if (finished) {
            return;
        }
        finished = true; // before the reset below, which fails the pending send() re-entrantly
        if (upstreamRequest != null) {
            upstreamRequest.reset();
        }
        String reason;
        if (ForwardOutcomes.IDLE_TIMEOUT.equals(timeoutOutcome)) {
            reason = "worker " + worker.url() + " sent nothing for " + owner.upstream().idleTimeout().toSeconds() + " s";
        } else if (ForwardOutcomes.ATTEMPT_TIMEOUT.equals(timeoutOutcome)) {
            reason = "worker " + worker.url() + " did not answer within "
                    + owner.upstream().nonStreamAttemptTimeout().toSeconds() + " s";
        } else if (timeoutOutcome != null) {
            reason = "no response within the request timeout of " + owner.upstream().requestTimeout().toSeconds()
                    + " s (last worker " + worker.url() + ")";
        } else {
            reason = "worker " + worker.url() + " failed: " + describe(cause);
        }
        LOG.warn("Request {} to {}: {}", requestId(), worker.url(), reason);
        exchange.setException(error.exception(reason));
        finish(timeoutOutcome != null ? timeoutOutcome : ForwardOutcomes.UPSTREAM_FAILED);
    }

    private void failWhileStreaming(String outcome, Throwable cause) {
        if (finished) {
            return;
        }
        finished = true;
        LOG.warn("Request {} to {} broke while streaming ({}): {}", requestId(), worker.url(), outcome,
                cause == null ? "request timeout" : describe(cause));
        if (upstreamRequest != null) {
            upstreamRequest.reset();
        }
        if (!client.ended() && !clientGone) {
            client.reset();
        }
        finish(outcome);
    }

    /** Completes the exchange; every caller has set {@code finished} first, so this runs once. */
    private void finish(String outcome) {
        if (timerId >= 0) {
            owner.upstream().vertx().cancelTimer(timerId);
            timerId = -1;
        }
        lease.release();
        exchange.setProperty(CaravanExchangeProperties.OUTCOME, outcome);
        if (sniffer != null) {
            exchange.setProperty(CaravanExchangeProperties.USAGE, sniffer.finish());
        }
        owner.attemptEnded(worker, outcome, exchange.getProperty(CaravanExchangeProperties.RESPONSE_STATUS,
                Integer.class));
        callback.done(false);
    }

    /** The earlier of two {@link System#nanoTime()} instants (overflow-safe). */
    private static long earlier(long a, long b) {
        return a - b <= 0 ? a : b;
    }

    private String requestId() {
        return exchange.getProperty(CaravanExchangeProperties.REQUEST_ID, String.class);
    }

    private static String describe(Throwable t) {
        if (t == null) {
            return "unknown error";
        }
        String m = t.getMessage();
        return m == null || m.isBlank() ? t.getClass().getSimpleName() : m;
    }
}
