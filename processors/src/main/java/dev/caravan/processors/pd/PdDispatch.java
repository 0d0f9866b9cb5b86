package dev.caravan.processors.pd;

import java.util.EnumMap;
import java.util.Map;
import java.util.function.Consumer;

import io.vertx.core.Context;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpServerRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.caravan.processors.ExchangeProperty;
import dev.caravan.processors.forward.UpstreamClient;

/**
 * The state of one attempt of a P/D request, shared by the two legs, the aggregation strategy and the relay (exchange
 * property {@code PdDispatch.PROPERTY}; multicast copies share it by reference).
 *
 * <p>It owns the legs' upstream calls ({@link PdLeg}) so that any party can cancel a leg: the aggregation cancels the
 * decode leg when the prefill fails and the prefill leg when the decode rejects first; a client that disconnects
 * cancels both (until the relay takes over the client connection). A cancellation that arrives before its leg has
 * started is remembered and ends the leg as soon as it starts. It also records the legs' results in arrival order,
 * from which {@link PdVerdict#decide} derives the answer.
 *
 * <p>Threading: every method runs on the client connection's event loop ({@link #context()}); calls from elsewhere are
 * moved there ({@link #onContext}), so the state needs no locks.
 */
public final class PdDispatch {

    /** The attempt's dispatch, shared by reference by both legs' exchange copies, the aggregation and the relay. */
    public static final ExchangeProperty<PdDispatch> PROPERTY =
            ExchangeProperty.of("caravanPdDispatch", PdDispatch.class);

    private static final Logger LOG = LoggerFactory.getLogger(PdDispatch.class);

    private final PdPair pair;
    private final HttpServerRequest client;
    private final Context context;
    private final UpstreamClient upstream;
    private final PdMetrics metrics;
    private final long startNanos;
    private final long deadlineNanos;
    private final Map<Leg, PdLeg> legs = new EnumMap<>(Leg.class);
    private final Map<Leg, String> cancelledEarly = new EnumMap<>(Leg.class);
    private final Map<Leg, String> cancellations = new EnumMap<>(Leg.class);
    private LegResult prefillResult;
    private LegResult decodeResult;
    private Leg first;
    private boolean clientGone;
    private boolean clientDetached;

    /**
     * @param startNanos    when the attempt started ({@link System#nanoTime()}), for the prefill wait
     * @param deadlineNanos when the request's end-to-end timeout passes ({@link System#nanoTime()} scale)
     */
    public PdDispatch(PdPair pair, HttpServerRequest client, Context context, UpstreamClient upstream,
                      PdMetrics metrics, long startNanos, long deadlineNanos) {
        this.pair = pair;
        this.client = client;
        this.context = context;
        this.upstream = upstream;
        this.metrics = metrics;
        this.startNanos = startNanos;
        this.deadlineNanos = deadlineNanos;
    }

    /** Watches the client connection: if it closes while the legs run, both are cancelled. */
    public void open() {
        onContext(() -> {
            if (client.response().closed()) {
                onClientClosed();
            } else {
                client.response().closeHandler(v -> onClientClosed());
            }
        });
    }

    private void onClientClosed() {
        if (clientDetached || clientGone) {
            return;
        }
        clientGone = true;
        LOG.debug("Client left a P/D request before the response started; cancelling both legs");
        // close both connections before either cancellation runs the aggregation; decode first, as it is the leg
        // that would otherwise sit in its bootstrap wait
        for (Leg leg : new Leg[] {Leg.DECODE, Leg.PREFILL}) {
            PdLeg call = legs.get(leg);
            if (call != null) {
                call.abort();
            }
        }
        cancel(Leg.DECODE, PdMetrics.CLIENT_CLOSED);
        cancel(Leg.PREFILL, PdMetrics.CLIENT_CLOSED);
    }

    /** The relay takes over the client connection (its own close handler); this dispatch stops watching it. */
    public void detachClient() {
        clientDetached = true;
    }

    /**
     * Starts a leg's upstream call; reports its result to {@code listener} (on this dispatch's context).
     *
     * @param answersWhenDone the engine sends the head only when done (prefill, or a non-streamed decode), so the
     *                        per-attempt limit {@link UpstreamClient#nonStreamAttemptTimeout()} bounds the wait
     */
    void startLeg(Leg leg, String path, MultiMap headers, Buffer body, boolean answersWhenDone,
                  Consumer<LegResult> listener) {
        onContext(() -> {
            PdLeg call = new PdLeg(leg, pair.side(leg), upstream, listener);
            legs.put(leg, call);
            String early = cancelledEarly.remove(leg);
            if (early != null) {
                call.cancel(early);
                metrics.cancelled(leg, early);
                return;
            }
            call.start(path, headers, body, remainingNanos() / 1_000_000,
                    answersWhenDone ? upstream.nonStreamAttemptTimeout().toMillis() : 0);
        });
    }

    /**
     * Cancels a leg (closing its connection); counted in {@code caravan_pd_cancellations_total{leg,reason}} when
     * something was in flight.
     */
    public void cancel(Leg leg, String reason) {
        onContext(() -> {
            cancellations.putIfAbsent(leg, reason);
            PdLeg call = legs.get(leg);
            if (call == null) {
                cancelledEarly.putIfAbsent(leg, reason); // counted if the leg ever starts
            } else if (call.cancel(reason)) {
                metrics.cancelled(leg, reason);
            }
        });
    }

    /** Records a leg's result as the aggregation (or the sequential vLLM route) receives it. */
    public void arrived(LegResult result) {
        if (first == null) {
            first = result.leg();
        }
        if (!result.ok() && !result.cancelled()) {
            metrics.failed(result.leg(), PdMetrics.failureReason(result));
        }
        if (result.leg() == Leg.PREFILL) {
            prefillResult = result;
            if (!result.cancelled()) {
                metrics.prefillWait(System.nanoTime() - startNanos);
            }
        } else {
            decodeResult = result;
        }
    }

    /**
     * Decides the attempt once both legs have ended and reports the legs that the verdict judges (prefill always when it
     * ended on its own; decode unless prefill failed first or its stream is still to come).
     */
    public PdVerdict conclude(LegOutcomes outcomes) {
        PdVerdict verdict = PdVerdict.decide(prefillResult, decodeResult, first, clientGone);
        outcomes.report(Leg.PREFILL, pair.prefill(), LegOutcomes.prefill(verdict));
        outcomes.report(Leg.DECODE, pair.decode(), LegOutcomes.decodeAtVerdict(verdict));
        return verdict;
    }

    /** Hands the parked decode response to the relay. */
    HttpClientResponse takeDecodeResponse() {
        PdLeg call = legs.get(Leg.DECODE);
        return call == null ? null : call.take();
    }

    /** Runs {@code task} on this dispatch's event loop: now if already there, else queued. */
    public void onContext(Runnable task) {
        if (Vertx.currentContext() == context) {
            task.run();
        } else {
            context.runOnContext(v -> task.run());
        }
    }

    /** Why the leg was first asked to cancel, or null (for tests and logs). */
    String cancellation(Leg leg) {
        return cancellations.get(leg);
    }

    public boolean hasArrived(Leg leg) {
        return (leg == Leg.PREFILL ? prefillResult : decodeResult) != null;
    }

    public LegResult result(Leg leg) {
        return leg == Leg.PREFILL ? prefillResult : decodeResult;
    }

    public boolean clientGone() {
        return clientGone;
    }

    public PdPair pair() {
        return pair;
    }

    public Context context() {
        return context;
    }

    public HttpServerRequest client() {
        return client;
    }

    public long startNanos() {
        return startNanos;
    }

    /** Nanoseconds left until the request's end-to-end timeout. */
    public long remainingNanos() {
        return deadlineNanos - System.nanoTime();
    }

    /** When the request's end-to-end timeout passes ({@link System#nanoTime()} scale). */
    public long deadlineNanos() {
        return deadlineNanos;
    }
}
