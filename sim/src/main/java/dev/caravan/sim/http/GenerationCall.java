package dev.caravan.sim.http;

import java.util.ArrayList;
import java.util.List;

import dev.caravan.sim.engine.EngineDriver;
import dev.caravan.sim.engine.RequestListener;
import dev.caravan.sim.engine.SimRequest;
import dev.caravan.sim.pd.BootstrapClient;

import io.vertx.core.http.HttpServerRequest;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the sequences of one HTTP request through the engine and reports to a {@link Sink} that renders the API's
 * response. Owns the request's lifecycle rules:
 * <ul>
 *   <li>decode-side jobs first wait for their bootstrap room, then enter the engine warm; a failed room or a timeout
 *       fails the whole request (502 / 504);</li>
 *   <li>prefill-side jobs announce their room, declare it ready when their prefill completes, and failed if they die
 *       first;</li>
 *   <li>if the client goes away, every unfinished sequence is aborted and counted ({@code cancelled_waiting} while
 *       queued or waiting for a room, {@code cancelled} while running).</li>
 * </ul>
 * Every sequence of the request runs on one data-parallel rank ({@link EngineContext#rankFor}).
 * Runs on the engine's context thread.
 */
final class GenerationCall implements RequestListener {

    /** Renders one API's response. */
    interface Sink {
        void onToken(Job job, SimRequest r, int index, int tokenId);

        default void onJobDone(Job job, SimRequest r) {
        }

        void onAllDone(List<SimRequest> results);

        void onError(int status, String message);
    }

    private static final Logger LOG = LoggerFactory.getLogger(GenerationCall.class);

    private final EngineContext ctx;
    private final EngineDriver driver;
    private final List<Job> jobs;
    private final Sink sink;
    private final SimRequest[] requests;
    private final BootstrapClient.Wait[] waits;
    private int done;
    private boolean over;

    GenerationCall(EngineContext ctx, HttpServerRequest http, List<Job> jobs, Sink sink) {
        this(ctx, http, jobs, null, sink);
    }

    /**
     * @param cacheSalt the request's {@code cache_salt}, or null
     */
    GenerationCall(EngineContext ctx, HttpServerRequest http, List<Job> jobs, String cacheSalt, Sink sink) {
        this.ctx = ctx;
        this.driver = ctx.rankFor(http).driver();
        this.jobs = jobs;
        this.sink = sink;
        this.requests = new SimRequest[jobs.size()];
        this.waits = new BootstrapClient.Wait[jobs.size()];
        http.response().closeHandler(v -> clientGone());
        for (int i = 0; i < jobs.size(); i++) {
            Job j = jobs.get(i);
            requests[i] = driver.core().newRequest(j.prompt(), j.maxTokens(), j.rendezvous() != null, j.index(),
                    cacheSalt, this);
            if (j.room() != null) {
                ctx.rooms.announce(j.room());
            }
        }
    }

    void start() {
        long timeoutMs = driver.toWallMillis(ctx.config.bootstrapTimeout().toNanos());
        for (int i = 0; i < jobs.size(); i++) {
            Job j = jobs.get(i);
            if (j.rendezvous() == null) {
                driver.submit(requests[i]);
                continue;
            }
            int slot = i;
            waits[i] = ctx.bootstrapClient.await(j.rendezvous(), timeoutMs, w -> roomDecided(slot, w));
        }
    }

    private void roomDecided(int slot, BootstrapClient.Wait w) {
        waits[slot] = null;
        if (over) {
            return;
        }
        switch (w.outcome()) {
            case READY -> driver.submit(requests[slot]);
            case FAILED -> {
                ctx.stats.recordBootstrapFailure();
                fail(502, "KV transfer failed for bootstrap room " + w.target().room() + ": " + w.reason());
            }
            case TIMEOUT -> {
                ctx.stats.recordBootstrapTimeout();
                fail(504, w.reason());
            }
            default -> {
            }
        }
    }

    @Override
    public void onPrefilled(SimRequest r) {
        int slot = slotOf(r);
        ctx.stats.recordAdmitted(r.promptTokens(), r.cachedTokens());
        Job j = jobs.get(slot);
        if (j.room() != null) {
            ctx.rooms.ready(j.room(), r.promptTokens());
        }
    }

    @Override
    public void onToken(SimRequest r, int index, int tokenId) {
        if (!over) {
            sink.onToken(jobs.get(slotOf(r)), r, index, tokenId);
        }
    }

    @Override
    public void onFinished(SimRequest r) {
        ctx.stats.recordFinished(r.generated());
        if (over) {
            return;
        }
        sink.onJobDone(jobs.get(slotOf(r)), r);
        if (++done == jobs.size()) {
            over = true;
            sink.onAllDone(List.of(requests));
        }
    }

    /** Aborts everything and answers with an error. */
    void fail(int status, String message) {
        if (over) {
            return;
        }
        abortAll("request failed: " + message, false);
        sink.onError(status, message);
    }

    private void clientGone() {
        if (over) {
            return;
        }
        LOG.debug("client went away; aborting {} sequence(s)", jobs.size());
        abortAll("client disconnected", true);
    }

    private void abortAll(String reason, boolean count) {
        over = true;
        List<SimRequest> toCancel = new ArrayList<>();
        for (int i = 0; i < requests.length; i++) {
            SimRequest r = requests[i];
            if (waits[i] != null) {
                waits[i].cancel();
                waits[i] = null;
                if (count) {
                    ctx.stats.recordCancelled(true);
                }
            } else if (r.state() == SimRequest.State.WAITING) {
                toCancel.add(r);
                if (count) {
                    ctx.stats.recordCancelled(true);
                }
            } else if (r.state() == SimRequest.State.PREFILL || r.state() == SimRequest.State.DECODING) {
                toCancel.add(r);
                if (count) {
                    ctx.stats.recordCancelled(false);
                }
            }
            String room = jobs.get(i).room();
            if (room != null) {
                ctx.rooms.failed(room, reason);
            }
        }
        for (SimRequest r : toCancel) {
            driver.cancel(r);
        }
    }

    private int slotOf(SimRequest r) {
        for (int i = 0; i < requests.length; i++) {
            if (requests[i] == r) {
                return i;
            }
        }
        throw new IllegalStateException("unknown request");
    }
}
