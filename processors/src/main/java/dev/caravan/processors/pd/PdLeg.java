package dev.caravan.processors.pd;

import java.util.function.Consumer;

import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.caravan.processors.forward.UpstreamClient;

/**
 * One leg's upstream call, on the shared non-blocking {@link UpstreamClient}: sends the request and reports one
 * {@link LegResult} to its listener, exactly once.
 *
 * <ul>
 *   <li><b>prefill</b>: the whole response is read (a prefill answers one token; the body is small and holds the prompt
 *       logprobs), then {@code RESPONSE} with the body; the prefill lease is released then, since the prefill engine's
 *       work for this request is over.</li>
 *   <li><b>decode</b>: as soon as the response head arrives the response is paused and reported as {@code RESPONSE}
 *       (the body stays on the connection for the relay to stream); the decode lease stays taken until the relay
 *       ends.</li>
 *   <li>A connection failure or a response broken before it was complete is {@code TRANSPORT_ERROR}; no (complete)
 *       answer within the request's remaining time is {@code TIMEOUT}; within the per-attempt limit of a leg whose
 *       engine answers only when done ({@code --non-stream-attempt-timeout-secs}) {@code ATTEMPT_TIMEOUT}.</li>
 *   <li>{@link #cancel} resets the request — closing the connection, which is how an engine learns to abort — and
 *       reports {@code CANCELLED} if nothing was reported yet; a decode response already reported but not yet taken
 *       by the relay is reset too.</li>
 * </ul>
 * Threading: created and driven on the client connection's event loop (the {@link PdDispatch} context); every Vert.x
 * callback arrives there, so the state needs no locks.
 */
final class PdLeg {

    private static final Logger LOG = LoggerFactory.getLogger(PdLeg.class);

    /** Larger prefill bodies are cut (their logprobs are then not spliced); a one-token answer is far smaller. */
    static final int MAX_PREFILL_BODY_BYTES = 16 << 20;

    private final Leg leg;
    private final PdPair.Side side;
    private final UpstreamClient upstream;
    private final Consumer<LegResult> listener;

    private HttpClientRequest request;
    private HttpClientResponse parked;
    private boolean aborted;
    private boolean taken;
    private LegResult result;
    private long timerId = -1;

    PdLeg(Leg leg, PdPair.Side side, UpstreamClient upstream, Consumer<LegResult> listener) {
        this.leg = leg;
        this.side = side;
        this.upstream = upstream;
        this.listener = listener;
    }

    Leg leg() {
        return leg;
    }

    /**
     * Sends the request; the earlier of {@code timeoutMs} (the request's remaining time) and {@code attemptLimitMs}
     * (0 = none) bounds the prefill's whole response or the decode's head.
     */
    void start(String path, MultiMap headers, Buffer body, long timeoutMs, long attemptLimitMs) {
        boolean attemptFirst = attemptLimitMs > 0 && attemptLimitMs < timeoutMs;
        long limitMs = attemptFirst ? attemptLimitMs : timeoutMs;
        timerId = upstream.vertx().setTimer(Math.max(1, limitMs), id -> {
            timerId = -1;
            fail(attemptFirst ? LegResult.Kind.ATTEMPT_TIMEOUT : LegResult.Kind.TIMEOUT, "no "
                    + (leg == Leg.PREFILL ? "complete response" : "response head") + " within " + limitMs + " ms");
        });
        UpstreamClient.Target target = upstream.target(side.worker().engineUrl());
        RequestOptions options = new RequestOptions().setMethod(HttpMethod.POST).setHost(target.host())
                .setPort(target.port()).setSsl(target.ssl()).setURI(target.pathPrefix() + path).setHeaders(headers);
        upstream.client().request(options).onComplete(ar -> {
            if (ar.failed()) {
                fail(LegResult.Kind.TRANSPORT_ERROR, describe(ar.cause()));
                return;
            }
            request = ar.result();
            // a reset request reports its own exception; without a handler Vert.x logs it as an error
            request.exceptionHandler(e -> LOG.debug("{} leg request to {} ended: {}", leg.wireName(),
                    side.worker().url(), describe(e)));
            if (result != null || aborted) {
                request.reset(); // cancelled while waiting for a connection
                return;
            }
            LOG.debug("Sending {} leg to {}", leg.wireName(), side.worker().url());
            request.send(body).onComplete(sent -> {
                if (sent.failed()) {
                    fail(LegResult.Kind.TRANSPORT_ERROR, describe(sent.cause()));
                } else {
                    onHead(sent.result());
                }
            });
        });
    }

    private void onHead(HttpClientResponse response) {
        if (result != null) {
            response.request().reset();
            return;
        }
        if (leg == Leg.DECODE) {
            response.pause(); // nothing may be read before the relay takes it
            parked = response;
            response.exceptionHandler(e -> LOG.debug("Parked decode response from {} broke: {}", side.worker().url(),
                    e.toString()));
            report(LegResult.response(leg, response.statusCode(), response.headers(), null, response));
            return;
        }
        Buffer body = Buffer.buffer();
        response.handler(chunk -> {
            if (body.length() + chunk.length() <= MAX_PREFILL_BODY_BYTES) {
                body.appendBuffer(chunk);
            }
        });
        response.exceptionHandler(e -> fail(LegResult.Kind.TRANSPORT_ERROR, "response broke: " + describe(e)));
        response.endHandler(v -> report(LegResult.response(leg, response.statusCode(), response.headers(), body, null)));
    }

    /**
     * Cancels the leg: resets its request (closing the connection) unless it has ended, and reports {@code CANCELLED}
     * if nothing was reported yet.
     *
     * @return true when something was in flight (a request, or a decode response not yet taken by the relay)
     */
    boolean cancel(String reason) {
        if (result == null) {
            LOG.debug("Cancelling {} leg on {}: {}", leg.wireName(), side.worker().url(), reason);
            abort();
            report(LegResult.failed(leg, LegResult.Kind.CANCELLED, reason));
            return true;
        }
        if (parked != null && !taken) {
            LOG.debug("Closing the unused decode response of {}: {}", side.worker().url(), reason);
            taken = true;
            parked.request().reset();
            side.lease().release();
            return true;
        }
        return false;
    }

    /**
     * Closes the leg's connection now, before its cancellation is reported ({@link #cancel}): reporting completes the
     * leg's multicast branch, which runs the aggregation, so a dispatch cancelling both legs resets both first. The
     * reset fails the pending {@code send()} re-entrantly; that failure is ignored.
     */
    void abort() {
        if (result == null && !aborted) {
            aborted = true;
            if (request != null) {
                request.reset();
            }
        }
    }

    /** Hands the parked decode response to the relay; later cancellations no longer touch it. */
    HttpClientResponse take() {
        taken = true;
        return parked;
    }

    private void fail(LegResult.Kind kind, String reason) {
        if (result != null || aborted) {
            return;
        }
        LOG.debug("{} leg on {} failed: {}", leg.wireName(), side.worker().url(), reason);
        report(LegResult.failed(leg, kind, reason));
        if (request != null) {
            request.reset();
        }
    }

    private void report(LegResult r) {
        result = r;
        if (timerId >= 0) {
            upstream.vertx().cancelTimer(timerId);
            timerId = -1;
        }
        if (leg == Leg.PREFILL || r.kind() != LegResult.Kind.RESPONSE) {
            side.lease().release();
        }
        listener.accept(r);
    }

    static String describe(Throwable t) {
        if (t == null) {
            return "unknown error";
        }
        String m = t.getMessage();
        return m == null || m.isBlank() ? t.getClass().getSimpleName() : m;
    }
}
