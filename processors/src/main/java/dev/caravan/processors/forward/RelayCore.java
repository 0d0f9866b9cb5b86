package dev.caravan.processors.forward;

import static dev.caravan.processors.CaravanExchangeProperties.OUTCOME;
import static dev.caravan.processors.CaravanExchangeProperties.REQUEST_ID;
import static dev.caravan.processors.CaravanExchangeProperties.RESPONSE_COMMITTED;
import static dev.caravan.processors.CaravanExchangeProperties.RESPONSE_END_NANOS;
import static dev.caravan.processors.CaravanExchangeProperties.RESPONSE_STATUS;
import static dev.caravan.processors.CaravanExchangeProperties.TTFB_NANOS;

import java.time.Duration;

import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpServerResponse;
import org.apache.camel.AsyncCallback;
import org.apache.camel.Exchange;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.caravan.components.http.RequestCompletion;
import dev.caravan.processors.error.GatewayError;
import dev.caravan.processors.time.DelayScheduler;
import dev.caravan.processors.tuning.RouteEnds;

/**
 * The state machine of relaying one upstream response to the client, shared by the data plane's {@link StreamRelay} and
 * the P/D decode relay: limits, client close, upstream failure, back-pressure, and finishing exactly once. The relays
 * keep only what differs ({@link Hooks}: how the upstream request starts, how the head is decorated, a body rewriter,
 * what finishing reports).
 *
 * <p>States: <i>sending</i> ({@link #begin}; waiting for a connection and the response head) → <i>streaming</i>
 * ({@link #stream}: head written, each upstream chunk written as it arrives — what one read brought in one write,
 * {@link ClientWrites} — the upstream paused while the client's write queue is full) → <i>finished</i>. Exactly one event ends it, and {@link Hooks#finished} runs once:
 * <ul>
 *   <li>upstream end → client response ended, outcome {@code completed} (for the request's answer the exchange
 *       resumes a moment later: {@link RouteEnds});</li>
 *   <li>upstream failure before the head ({@link #failBeforeHead}) → a 502 exception on the exchange for the route's
 *       error handler, outcome {@code upstream_failed};</li>
 *   <li>upstream failure while streaming → client connection reset (a truncated stream must not look complete),
 *       outcome {@code upstream_failed};</li>
 *   <li>the end-to-end deadline (counted from the request's arrival, so queueing and earlier attempts use it up), the
 *       idle limit (nothing from the worker since the last chunk, or — streamed requests only — since sending; engines
 *       send a non-streamed response's head only when done), or for a non-streamed request the attempt limit (no head
 *       since the attempt began) → before the head a 504 exception (outcome {@code timeout} / {@code idle_timeout} /
 *       {@code attempt_timeout}); while streaming an SSE stream ends with a final error event
 *       ({@link ClientStreams#endOnTimeout}), any other body is reset;</li>
 *   <li>a status nobody must see because another attempt follows ({@link #discard}) → nothing written, upstream reset,
 *       outcome {@code retryable_status};</li>
 *   <li>client gone (connection closed before the response ended) → upstream request reset, so the engine aborts the
 *       generation; outcome {@code client_closed}, status 499.</li>
 * </ul>
 *
 * <p><b>Timers.</b> One timer per relay, set for the earliest limit; it re-arms itself when data arrived meanwhile, so
 * chunks never touch it. The head's change of limits (the idle limit may start to apply) re-arms it when the head's
 * write turn comes, so an answer that ends in the read that brought its head never re-arms it. Delays are rounded
 * <em>up</em> to whole milliseconds: a timer never fires before its limit (rounding down, which the P/D relay once
 * did, woke it early and made it re-arm).
 *
 * <p><b>Threading.</b> Every method and callback runs on the client connection's event loop: the relay is started
 * there, and Vert.x delivers client, upstream and timer events to the context that registered them. So the state needs
 * no locks; "finished" is a plain flag checked first by every event.
 */
public final class RelayCore {

    private static final Logger LOG = LoggerFactory.getLogger(RelayCore.class);

    /** Farther than any configured limit, near enough that {@code nanoTime} differences cannot overflow. */
    private static final long MAX_LIMIT_NANOS = Long.MAX_VALUE / 4;
    private static final long MAX_LIMIT_SECONDS = MAX_LIMIT_NANOS / 1_000_000_000L;
    private static final int MAX_LIMIT_NANO_PART = (int) (MAX_LIMIT_NANOS % 1_000_000_000L);

    /** What differs between the relays. Called on the relay's event loop. */
    public interface Hooks {

        /** The head is about to be written: add the gateway's headers (request id, decision headers, ...). */
        void onHead(HttpClientResponse upstream, MultiMap clientHeaders);

        /** The bytes to write for one upstream chunk (empty while a rewriter holds back an incomplete unit). */
        default Buffer onChunk(Buffer chunk) {
            return chunk;
        }

        /** The bytes still held back when the upstream body ends. */
        default Buffer onEnd() {
            return Buffer.buffer();
        }

        /**
         * The attempt ended (once): release its lease, report it. {@code OUTCOME} is already on the exchange; the
         * exchange completes right after this returns (or throws).
         */
        void finished(String outcome);

        /**
         * Where a completed response's route end waits, if this relay's response is the request's answer: nothing
         * after it in the route can change what the request held or reports, so the request completes when the
         * response ends and Camel resumes later ({@link #finish}). Null (the default): Camel resumes at once. The data
         * plane's relay answers; P/D's decode leg, whose exchange the aggregation still reads, does not.
         */
        default RouteEnds routeEnds() {
            return null;
        }
    }

    private final Exchange exchange;
    private final AsyncCallback callback;
    private final HttpServerResponse client;
    private final RelayTiming timing;
    private final String worker;
    private final Hooks hooks;
    private final long arrivalNanos;
    private final long deadlineNanos;
    private final long idleNanos;
    private final boolean idleBeforeHead;
    private final boolean headLimited;
    private final long headDueNanos;

    private final ClientWrites writes;
    private final Runnable onTimer = this::onTimer;
    private HttpClientRequest upstreamRequest;
    private HttpClientResponse upstreamResponse;
    private DelayScheduler.Scheduled timer;
    /** The head came: the timer's due may have moved, checked when the head's write turn comes. */
    private boolean rearmPending;
    private long lastActivityNanos;
    private boolean streaming;
    private boolean finished;

    /**
     * @param arrivalNanos when the request arrived ({@code START_NANOS}): the deadline and TTFB count from it
     * @param streamed     the client asked for a streamed response: its head comes early, so silence before it is idle
     *                     time; a non-streamed attempt gets the attempt limit instead
     * @param worker       the worker's URL, for messages and logs
     */
    public RelayCore(Exchange exchange, AsyncCallback callback, HttpServerResponse client, RelayTiming timing,
                     long arrivalNanos, boolean streamed, String worker, Hooks hooks) {
        this.exchange = exchange;
        this.callback = callback;
        this.client = client;
        this.timing = timing;
        this.worker = worker;
        this.hooks = hooks;
        this.arrivalNanos = arrivalNanos;
        long requestNanos = nanos(timing.requestTimeout());
        this.deadlineNanos = arrivalNanos + requestNanos;
        this.idleNanos = nanos(timing.idleTimeout());
        this.idleBeforeHead = streamed;
        // a non-streamed attempt's own limit; one not shorter than the end-to-end timeout can never pass first
        long attemptNanos = nanos(timing.attemptTimeout());
        this.headLimited = !streamed && attemptNanos > 0 && attemptNanos < requestNanos;
        this.headDueNanos = timing.nanoTime().getAsLong() + attemptNanos;
        this.writes = new ClientWrites(client, timing.timers(), this::rearmIfPending, this::pauseWhileClientQueueFull);
    }

    /**
     * Starts watching the client and the limits. Returns false when the client has already left: the relay has then
     * finished ({@code client_closed}) and nothing must be sent.
     */
    public boolean begin() {
        if (client.closed()) {
            onClientClosed();
            return false;
        }
        client.closeHandler(v -> onClientClosed());
        lastActivityNanos = timing.nanoTime().getAsLong();
        armTimer();
        return true;
    }

    /**
     * The upstream request now exists; resetting it closes its connection, which is how an engine learns to abort.
     * Returns false (after resetting it) when the relay finished while it was being opened.
     */
    public boolean attach(HttpClientRequest request) {
        upstreamRequest = request;
        if (finished) {
            request.reset();
            return false;
        }
        return true;
    }

    public boolean finished() {
        return finished;
    }

    /** Before the head: the worker could not be reached or the connection broke → 502 {@code upstream_failed}. */
    public void failBeforeHead(Throwable cause) {
        failBeforeHead(GatewayError.UPSTREAM_FAILED, ForwardOutcomes.UPSTREAM_FAILED,
                "worker " + worker + " failed: " + describe(cause));
    }

    /**
     * Before the head: the worker answered a status another attempt will retry. Nothing reaches the client; the
     * connection is reset rather than drained (error bodies are small, but a misbehaving worker's need not be).
     */
    public void discard(HttpClientResponse upstream) {
        if (finished) {
            return;
        }
        finished = true;
        RESPONSE_STATUS.set(exchange, upstream.statusCode());
        LOG.debug("Request {}: {} answered {}; another attempt follows", requestId(), worker, upstream.statusCode());
        resetUnread(upstream);
        finish(ForwardOutcomes.RETRYABLE_STATUS);
    }

    /** Relays the upstream response: writes its head, then each chunk as it arrives, until one event ends it. */
    public void stream(HttpClientResponse upstream) {
        if (finished) {
            resetUnread(upstream);
            return;
        }
        if (upstreamRequest == null) {
            upstreamRequest = upstream.request();
        }
        streaming = true;
        long now = timing.nanoTime().getAsLong();
        lastActivityNanos = now;
        // the idle limit may now apply, and be due before whatever the timer waited for: re-armed when the head's write
        // turn comes (ClientWrites, later in this same pass of the event loop), so a response whose head, body and end
        // came in one read (most non-streamed answers) ends first and its timer is cancelled once, never re-armed
        rearmPending = true;
        RESPONSE_COMMITTED.set(exchange, true);
        RESPONSE_STATUS.set(exchange, upstream.statusCode());
        client.setStatusCode(upstream.statusCode());
        UpstreamHeaders.copyResponse(upstream.headers(), client.headers());
        hooks.onHead(upstream, client.headers());
        if (!client.headers().contains("content-length")) {
            client.setChunked(true);
        }
        TTFB_NANOS.set(exchange, now - arrivalNanos);
        upstreamResponse = upstream;
        writes.head();
        upstream.handler(chunk -> onChunk(upstream, chunk));
        upstream.exceptionHandler(this::failWhileStreaming);
        upstream.endHandler(v -> onEnd());
        upstream.resume(); // a response parked by its leg (P/D decode) starts flowing only now
    }

    private void onChunk(HttpClientResponse upstream, Buffer chunk) {
        if (finished) {
            return;
        }
        lastActivityNanos = timing.nanoTime().getAsLong();
        writes.write(hooks.onChunk(chunk));
    }

    /** Back-pressure: the upstream waits while the client's write queue is full. */
    private void pauseWhileClientQueueFull() {
        if (!finished && client.writeQueueFull()) {
            HttpClientResponse upstream = upstreamResponse;
            upstream.pause();
            client.drainHandler(v -> upstream.resume());
        }
    }

    private void onEnd() {
        if (finished) {
            return;
        }
        finished = true;
        writes.end(hooks.onEnd());
        finish(ForwardOutcomes.COMPLETED);
    }

    private void armTimer() {
        rearmPending = false; // the due is computed from the state as it is now
        long now = timing.nanoTime().getAsLong();
        long due = deadlineNanos;
        if (idleNanos > 0 && (streaming || idleBeforeHead)) {
            due = earlier(due, lastActivityNanos + idleNanos);
        }
        if (headLimited && !streaming) {
            due = earlier(due, headDueNanos);
        }
        long delayMs = Math.max(1, ceilMillis(due - now));
        timer = timing.timers().schedule(delayMs, onTimer);
    }

    private void rearmIfPending() {
        if (rearmPending && !finished) {
            rearmPending = false;
            rearm();
        }
    }

    private void rearm() {
        if (timer != null) {
            timer.cancel();
        }
        armTimer();
    }

    private void onTimer() {
        timer = null;
        if (finished) {
            return;
        }
        long now = timing.nanoTime().getAsLong();
        String outcome;
        if (now - deadlineNanos >= 0) {
            outcome = ForwardOutcomes.TIMEOUT;
        } else if (idleNanos > 0 && (streaming || idleBeforeHead) && now - lastActivityNanos >= idleNanos) {
            outcome = ForwardOutcomes.IDLE_TIMEOUT;
        } else if (headLimited && !streaming && now - headDueNanos >= 0) {
            outcome = ForwardOutcomes.ATTEMPT_TIMEOUT;
        } else {
            armTimer(); // data arrived since the timer was set
            return;
        }
        if (streaming) {
            endStreamOnTimeout(outcome);
        } else {
            failBeforeHead(GatewayError.UPSTREAM_TIMEOUT, outcome, timeoutReason(outcome));
        }
    }

    private String timeoutReason(String outcome) {
        return switch (outcome) {
            case ForwardOutcomes.IDLE_TIMEOUT ->
                    "worker " + worker + " sent nothing for " + seconds(timing.idleTimeout());
            case ForwardOutcomes.ATTEMPT_TIMEOUT -> "worker " + worker + " did not answer within "
                    + seconds(timing.attemptTimeout());
            default -> "no response within the request timeout of " + seconds(timing.requestTimeout())
                    + " (last worker " + worker + ")";
        };
    }

    /** A limit passed while streaming: cancel the upstream and tell the client ({@link ClientStreams}). */
    private void endStreamOnTimeout(String outcome) {
        finished = true;
        String reason = outcome.equals(ForwardOutcomes.TIMEOUT)
                ? "request exceeded " + seconds(timing.requestTimeout())
                : "worker sent nothing for " + seconds(timing.idleTimeout());
        LOG.warn("Request {} to {} ended while streaming ({}): {}", requestId(), worker, outcome, reason);
        resetUpstream();
        writes.handOver(); // what the worker sent before goes first
        ClientStreams.endOnTimeout(client, reason);
        finish(outcome);
    }

    private void onClientClosed() {
        if (finished) {
            return;
        }
        finished = true;
        LOG.debug("Client left request {} on {}; cancelling upstream", requestId(), worker);
        writes.discard();
        resetUpstream();
        ClientStreams.markClientClosed(exchange);
        finish(ForwardOutcomes.CLIENT_CLOSED);
    }

    private void failBeforeHead(GatewayError error, String outcome, String reason) {
        if (finished) {
            return;
        }
        finished = true; // before the reset below, which fails the pending send() re-entrantly
        resetUpstream();
        LOG.warn("Request {} to {}: {}", requestId(), worker, reason);
        exchange.setException(error.exception(reason));
        finish(outcome);
    }

    private void failWhileStreaming(Throwable cause) {
        if (finished) {
            return;
        }
        finished = true;
        LOG.warn("Request {} to {} broke while streaming ({}): {}", requestId(), worker,
                ForwardOutcomes.UPSTREAM_FAILED, describe(cause));
        resetUpstream();
        writes.handOver(); // what the worker sent before it broke still reaches the client, then the cut
        if (!client.ended()) {
            client.reset();
        }
        finish(ForwardOutcomes.UPSTREAM_FAILED);
    }

    /**
     * Closes a response nobody will read. The reset fails the response with a {@code StreamResetException}, which
     * Vert.x would log as an error without a handler; here it is expected.
     */
    private void resetUnread(HttpClientResponse upstream) {
        upstream.exceptionHandler(e -> LOG.debug("Request {}: unread response from {} closed: {}", requestId(), worker,
                describe(e)));
        upstream.request().reset();
    }

    private void resetUpstream() {
        if (upstreamRequest != null) {
            upstreamRequest.reset();
        }
    }

    /** Every caller has set {@code finished} first, so this runs once; the exchange completes even if a hook fails. */
    private void finish(String outcome) {
        if (timer != null) {
            timer.cancel();
            timer = null;
        }
        OUTCOME.set(exchange, outcome);
        try {
            hooks.finished(outcome);
        } catch (RuntimeException e) {
            LOG.warn("Request {}: finishing the relay failed: {}", requestId(), e.toString());
        } finally {
            RouteEnds ends = ForwardOutcomes.COMPLETED.equals(outcome) ? hooks.routeEnds() : null;
            if (ends != null) {
                answered(ends);
            } else {
                callback.done(false);
            }
        }
    }

    /**
     * The request's answer has ended. What the request held is released and what reports it runs now
     * ({@link RequestCompletion#completeNow}: the ticket, the tenant's settlement, the metrics, the trace span);
     * Camel's continuation (the rest of the route, which for a completed answer only ends the attempt loop, and the
     * unit of work) waits in {@link RouteEnds} until this event loop has forwarded its next request, 1 ms at the
     * latest. So a client's next request on a keep-alive connection, sent as soon as this response reached it, is read
     * and forwarded before the previous request's bookkeeping instead of after it. Nothing is saved; the work moves
     * off the next request's path.
     */
    private void answered(RouteEnds ends) {
        RESPONSE_END_NANOS.set(exchange, timing.nanoTime().getAsLong());
        RequestCompletion.completeNow(exchange);
        ends.defer(callback);
    }

    private String requestId() {
        return REQUEST_ID.get(exchange);
    }

    /** The earlier of two {@code nanoTime} instants (overflow-safe). */
    private static long earlier(long a, long b) {
        return a - b <= 0 ? a : b;
    }

    /** Whole milliseconds, rounded up: a timer set for them never fires before {@code nanos} have passed. */
    static long ceilMillis(long nanos) {
        return nanos <= 0 ? 0 : (nanos - 1) / 1_000_000 + 1;
    }

    /** {@code d} in nanoseconds, at most {@link #MAX_LIMIT_NANOS} (compared field by field: no Duration per call). */
    static long nanos(Duration d) {
        long s = d.getSeconds();
        if (s > MAX_LIMIT_SECONDS || (s == MAX_LIMIT_SECONDS && d.getNano() >= MAX_LIMIT_NANO_PART)) {
            return MAX_LIMIT_NANOS;
        }
        return d.toNanos();
    }

    private static String seconds(Duration d) {
        return d.toSeconds() + " s";
    }

    static String describe(Throwable t) {
        if (t == null) {
            return "unknown error";
        }
        String m = t.getMessage();
        return m == null || m.isBlank() ? t.getClass().getSimpleName() : m;
    }
}
