package dev.caravan.processors.forward;

import static dev.caravan.processors.config.FlagType.INT;
import static dev.caravan.processors.config.FlagType.LONG;

import java.util.List;

import dev.caravan.processors.config.CaravanFlag;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.config.FlagRows;
import dev.caravan.processors.config.Sections;
import dev.caravan.processors.feature.Feature;
import dev.caravan.processors.feature.Wiring;
import dev.caravan.processors.tls.TlsSettings;
import dev.caravan.processors.tuning.CamelTuning;

/**
 * Forwarding to the chosen worker: the upstream client, its connection limits and per-attempt timeouts, and the
 * streaming step {@code forwardStream} (ingress.camel.yaml), which tells the shared {@link ForwardAttemptListener}
 * (the breakers) how each attempt ended. Shares the {@link UpstreamClient} (P/D's legs use it too); {@link #close}
 * closes it.
 */
public final class ForwardFeature implements Feature {

    // ---- bean names (ingress.camel.yaml) ----------------------------------------------------------------------------

    public static final String FORWARD_STREAM = "forwardStream";
    /** The data plane's HTTP client ({@link UpstreamClient}). */
    public static final String UPSTREAM_CLIENT = "upstreamClient";

    private static final FlagRows ROWS = new FlagRows();

    public static final CaravanFlag CONNECT_TIMEOUT_SECS = ROWS.row("--connect-timeout-secs", "caravan.connect-timeout-secs",
            LONG, Sections.UPSTREAM)
            .defaultValue(GatewayConfig.DEFAULT_CONNECT_TIMEOUT_SECS).range(1, FlagRows.MAX_SECONDS)
            .describe("Limit for opening a connection to a worker, in seconds (then 502).");
    public static final CaravanFlag MAX_CONNECTIONS_PER_WORKER = ROWS.row("--max-connections-per-worker",
            "caravan.max-connections-per-worker", INT, Sections.UPSTREAM)
            .defaultValue(GatewayConfig.DEFAULT_MAX_CONNECTIONS_PER_WORKER).min(1)
            .describe("HTTP/1.1 connections the gateway keeps open to each worker at most (one per concurrent "
                    + "request), split evenly over the server's event loops (at least one each).");
    public static final CaravanFlag STREAM_IDLE_TIMEOUT_SECS = ROWS.row("--stream-idle-timeout-secs",
            "caravan.stream-idle-timeout-secs", LONG, Sections.LIFECYCLE)
            .defaultValue(GatewayConfig.DEFAULT_STREAM_IDLE_TIMEOUT_SECS).range(0, FlagRows.MAX_SECONDS)
            .describe("Seconds a worker may send nothing during one attempt: between chunks, and before the head of a "
                    + "streamed request (then the attempt fails and is retried); 0 = no limit.");
    public static final CaravanFlag NON_STREAM_ATTEMPT_TIMEOUT_SECS = ROWS.row("--non-stream-attempt-timeout-secs",
            "caravan.non-stream-attempt-timeout-secs", LONG, Sections.LIFECYCLE)
            .defaultValue(GatewayConfig.DEFAULT_NON_STREAM_ATTEMPT_TIMEOUT_SECS).range(0, FlagRows.MAX_SECONDS)
            .describe("Seconds one attempt of a non-streamed request (and a P/D prefill leg) may wait for the "
                    + "response, which engines send only when the generation is done; then the attempt fails and is "
                    + "retried elsewhere. 0 = no limit (only --request-timeout-secs).");

    private UpstreamClient upstream;

    @Override
    public List<CaravanFlag> flags() {
        return ROWS.all();
    }

    @Override
    public void wire(Wiring w) {
        GatewayConfig config = w.config();
        CamelTuning tuning = w.shared(CamelTuning.class);
        upstream = new UpstreamClient(w.vertx(), config.getSeconds(CONNECT_TIMEOUT_SECS), config.requestTimeout(),
                config.getSeconds(STREAM_IDLE_TIMEOUT_SECS), config.getSeconds(NON_STREAM_ATTEMPT_TIMEOUT_SECS),
                config.getInt(MAX_CONNECTIONS_PER_WORKER), w.shared(TlsSettings.class), config.serverEventLoops(),
                tuning.timers(w.vertx()));
        w.bind(UPSTREAM_CLIENT, upstream);
        w.bind(FORWARD_STREAM, new ForwardStreamProcessor(upstream, config.decisionHeaders(), config.apiKey(),
                w.shared(ForwardAttemptListener.class), tuning.routeEnds(upstream.timers())));
        w.share(UpstreamClient.class, upstream);
    }

    /** The data plane's HTTP client; null before {@link #wire}. */
    public UpstreamClient upstream() {
        return upstream;
    }

    @Override
    public void close() {
        if (upstream != null) {
            upstream.close();
        }
    }
}
