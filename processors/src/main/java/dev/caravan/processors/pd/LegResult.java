package dev.caravan.processors.pd;

import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientResponse;

import dev.caravan.processors.ExchangeProperty;

/**
 * What one leg of a P/D request produced; the body of the leg's exchange, which the aggregation reads.
 *
 * <p>A prefill {@link Kind#RESPONSE} carries the whole (small) prefill body, read to its end: the prefill is "done" only
 * when its response has ended. A decode {@link Kind#RESPONSE} carries only the head: {@link #response()} is paused, its
 * body not yet read, so the relay can stream it to the client afterwards without buffering.
 *
 * @param leg       which leg
 * @param kind      how the leg ended
 * @param status    HTTP status of a {@link Kind#RESPONSE}, else -1
 * @param headers   response headers of a {@link Kind#RESPONSE}, else null
 * @param body      prefill: the response body (possibly cut at {@link PdLeg#MAX_PREFILL_BODY_BYTES}); decode: null
 * @param response  decode: the paused upstream response; prefill: null
 * @param reason    why a non-response ended (transport error, timeout, cancellation reason), else null
 */
public record LegResult(Leg leg, Kind kind, int status, MultiMap headers, Buffer body, HttpClientResponse response,
                        String reason) {

    /** What one leg produced, on the leg's own exchange (a multicast copy): never shared with the other leg. */
    public static final ExchangeProperty<LegResult> PROPERTY =
            ExchangeProperty.of("caravanPdLegResult", LegResult.class);

    /** How a leg ended. */
    public enum Kind {
        /** The engine answered (any status). */
        RESPONSE,
        /** No answer: connection refused or reset, or the response broke before its end. */
        TRANSPORT_ERROR,
        /** No (complete) answer within the request timeout. */
        TIMEOUT,
        /**
         * No answer within the per-attempt limit ({@code --non-stream-attempt-timeout-secs}) to a leg whose engine
         * answers only when done: the prefill leg, and the decode leg of a non-streamed request. Retryable.
         */
        ATTEMPT_TIMEOUT,
        /** The gateway cancelled the leg (the other leg failed, or the client left); its connection was closed. */
        CANCELLED
    }

    public static LegResult response(Leg leg, int status, MultiMap headers, Buffer body, HttpClientResponse response) {
        return new LegResult(leg, Kind.RESPONSE, status, headers, body, response, null);
    }

    public static LegResult failed(Leg leg, Kind kind, String reason) {
        return new LegResult(leg, kind, -1, null, null, null, reason);
    }

    /** The engine answered 2xx. */
    public boolean ok() {
        return kind == Kind.RESPONSE && status >= 200 && status < 300;
    }

    /** The engine answered 4xx: the request was rejected, the engine is fine (breaker-neutral, forwarded as is). */
    public boolean clientError() {
        return kind == Kind.RESPONSE && status >= 400 && status < 500;
    }

    /** The leg was cancelled by the gateway rather than answered or failed. */
    public boolean cancelled() {
        return kind == Kind.CANCELLED;
    }

    /** A one-line description for logs and error messages. */
    public String describe() {
        return kind == Kind.RESPONSE ? "HTTP " + status : kind.name().toLowerCase(java.util.Locale.ROOT)
                + (reason == null ? "" : " (" + reason + ")");
    }
}
