package dev.caravan.sim.pd;

import java.util.Map;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The decode side of the P/D rendezvous: long-polls the prefill engine's {@link BootstrapEndpoint} until the room is
 * ready, failed, or the timeout passes. Connection errors (prefill engine not up yet, restarting) are retried every
 * {@value #RETRY_MS} ms until the deadline. Non-blocking; callbacks run on the calling context.
 */
public final class BootstrapClient {

    /** How a wait ended. */
    public enum Outcome { READY, FAILED, TIMEOUT, CANCELLED }

    static final long POLL_MS = 5_000;
    static final long RETRY_MS = 50;
    private static final Logger LOG = LoggerFactory.getLogger(BootstrapClient.class);
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final Vertx vertx;
    private final HttpClient client;
    private final LongSupplier wallMillis;

    public BootstrapClient(Vertx vertx, HttpClient client, LongSupplier wallMillis) {
        this.vertx = vertx;
        this.client = client;
        this.wallMillis = wallMillis;
    }

    /** Starts waiting; {@code done} gets the outcome (and the failure reason, for FAILED) exactly once. */
    public Wait await(Rendezvous target, long timeoutMs, Consumer<Wait> done) {
        Wait w = new Wait(target, wallMillis.getAsLong() + timeoutMs, done);
        poll(w);
        return w;
    }

    private void poll(Wait w) {
        if (w.outcome != null) {
            return;
        }
        long remaining = w.deadline - wallMillis.getAsLong();
        if (remaining <= 0) {
            w.finish(Outcome.TIMEOUT, "bootstrap room " + w.target.room() + " at " + w.target.host() + ":"
                    + w.target.port() + " not ready in time");
            return;
        }
        long waitMs = Math.min(POLL_MS, remaining);
        RequestOptions opts = new RequestOptions().setMethod(HttpMethod.GET).setHost(w.target.host())
                .setPort(w.target.port()).setURI(w.target.path(waitMs)).setIdleTimeout(waitMs + 5_000);
        client.request(opts).onSuccess(req -> {
            w.inFlight = req;
            if (w.outcome != null) {
                req.reset();
                return;
            }
            req.send().compose(resp -> resp.body()).onSuccess(body -> {
                w.inFlight = null;
                onBody(w, body.getBytes());
            }).onFailure(e -> retry(w, e));
        }).onFailure(e -> retry(w, e));
    }

    private void onBody(Wait w, byte[] body) {
        try {
            Map<?, ?> m = MAPPER.readValue(body, Map.class);
            Object state = m.get("state");
            if ("ready".equals(state)) {
                w.finish(Outcome.READY, null);
            } else if ("failed".equals(state)) {
                w.finish(Outcome.FAILED, String.valueOf(m.get("reason")));
            } else {
                poll(w);
            }
        } catch (Exception e) {
            retry(w, e);
        }
    }

    private void retry(Wait w, Throwable e) {
        w.inFlight = null;
        if (w.outcome != null) {
            return;
        }
        LOG.debug("bootstrap poll of {} failed ({}), retrying", w.target, e.toString());
        vertx.setTimer(RETRY_MS, id -> poll(w));
    }

    /** One decode request waiting for its room. */
    public static final class Wait {
        private final Rendezvous target;
        private final long deadline;
        private final Consumer<Wait> done;
        private volatile Outcome outcome;
        private String reason;
        private HttpClientRequest inFlight;

        Wait(Rendezvous target, long deadline, Consumer<Wait> done) {
            this.target = target;
            this.deadline = deadline;
            this.done = done;
        }

        /** Stops waiting (the client went away); the pending long-poll is reset. */
        public void cancel() {
            if (outcome == null) {
                outcome = Outcome.CANCELLED;
                if (inFlight != null) {
                    inFlight.reset();
                }
            }
        }

        public Outcome outcome() {
            return outcome;
        }

        public String reason() {
            return reason;
        }

        public Rendezvous target() {
            return target;
        }

        void finish(Outcome o, String why) {
            if (outcome != null) {
                return;
            }
            outcome = o;
            reason = why;
            done.accept(this);
        }
    }
}
