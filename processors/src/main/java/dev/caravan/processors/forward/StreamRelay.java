package dev.caravan.processors.forward;

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
 *   <li>upstream failure or timeout while streaming → client connection reset (a truncated stream must not look
 *       complete), outcome {@code upstream_failed} / {@code timeout};</li>
 *   <li>client gone (connection closed before the response ended) → upstream request reset, which closes the upstream
 *       connection so the engine aborts the generation; outcome {@code client_closed}, status 499.</li>
 * </ul>
 * {@link #finish} releases the worker lease, records TTFB, usage and outcome on the exchange, and completes the Camel
 * exchange through the callback. Threading: every callback runs on the client connection's event loop (the relay is
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

    private HttpClientRequest upstreamRequest;
    private long timerId = -1;
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
    }

    void start(String path, MultiMap headers, Buffer body) {
        if (client.closed()) {
            onClientClosed();
            return;
        }
        client.closeHandler(v -> onClientClosed());
        long timeoutMs = owner.upstream().requestTimeout().toMillis();
        timerId = owner.upstream().vertx().setTimer(timeoutMs, id -> onTimeout());
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
        streaming = true;
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
            sniffer.accept(chunk);
            client.write(chunk);
            if (client.writeQueueFull()) {
                upstream.pause();
                client.drainHandler(v -> upstream.resume());
            }
        });
        upstream.exceptionHandler(e -> failWhileStreaming("upstream_failed", e));
        upstream.endHandler(v -> {
            if (!finished) {
                finished = true;
                client.end();
                finish("completed");
            }
        });
    }

    private void onTimeout() {
        timerId = -1;
        if (finished) {
            return;
        }
        if (streaming) {
            failWhileStreaming("timeout", null);
        } else {
            failBeforeHead(GatewayError.UPSTREAM_TIMEOUT, null);
        }
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
        exchange.setProperty(CaravanExchangeProperties.RESPONSE_COMMITTED, true);
        exchange.setProperty(CaravanExchangeProperties.RESPONSE_STATUS, 499);
        finish("client_closed");
    }

    private void failBeforeHead(GatewayError error, Throwable cause) {
        if (finished) {
            return;
        }
        finished = true; // before the reset below, which fails the pending send() re-entrantly
        if (upstreamRequest != null) {
            upstreamRequest.reset();
        }
        String reason = error == GatewayError.UPSTREAM_TIMEOUT
                ? "worker " + worker.url() + " did not answer within " + owner.upstream().requestTimeout().toSeconds() + " s"
                : "worker " + worker.url() + " failed: " + describe(cause);
        LOG.warn("Request {} to {}: {}", requestId(), worker.url(), reason);
        exchange.setException(error.exception(reason));
        finish(error == GatewayError.UPSTREAM_TIMEOUT ? "timeout" : "upstream_failed");
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
        callback.done(false);
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
