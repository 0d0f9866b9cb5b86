package dev.caravan.sim;

import java.io.IOException;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.caravan.sim.engine.OutputGenerator;
import dev.caravan.sim.http.EngineContext;
import dev.caravan.sim.http.EngineRank;
import dev.caravan.sim.http.SimHttpServer;
import dev.caravan.sim.pd.BootstrapClient;
import dev.caravan.sim.pd.RoomRegistry;
import dev.caravan.sim.text.ModelText;

import io.vertx.core.AbstractVerticle;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One simulated vLLM/SGLang engine: an HTTP server on Vert.x (one event-loop context per engine, no thread per
 * request), its tokenizer and chat template, one scheduler, prefix cache and optional KV-event publisher per
 * data-parallel rank, and for the prefill role a bootstrap endpoint.
 *
 * <pre>{@code
 * try (SimEngine e = SimEngine.start(SimConfig.builder().timeScale(10).build())) {   // 127.0.0.1, ephemeral port
 *     String url = e.url();                                // http://127.0.0.1:<port>
 *     e.setFaults(Faults.NONE.merge(Map.of("error_rate", 1.0)));
 *     long served = e.stats().responses(200);
 * }
 * }</pre>
 * Thread-safe accessors; {@link #close()} stops everything it started.
 */
public final class SimEngine implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(SimEngine.class);
    private static final long START_TIMEOUT_S = 30;

    private final SimConfig config;
    private final Vertx vertx;
    private final boolean ownsVertx;
    private final SimStats stats = new SimStats();
    private final String name;
    private final ModelText text;
    private volatile EngineContext ctx;
    private volatile List<EngineRank> ranks = List.of();
    private volatile String deploymentId;
    private volatile int port;
    private volatile int bootstrapPort = -1;
    private volatile Context context;

    private SimEngine(SimConfig config, Vertx vertx, boolean ownsVertx, String name, ModelText text) {
        this.config = config;
        this.vertx = vertx;
        this.ownsVertx = ownsVertx;
        this.name = name;
        this.text = text;
    }

    /** Starts an engine on its own Vert.x instance and waits until it listens. */
    public static SimEngine start(SimConfig config) {
        Vertx vertx = Vertx.vertx();
        try {
            return await(start(vertx, config, "0", true));
        } catch (RuntimeException e) {
            vertx.close();
            throw e;
        }
    }

    /** Starts an engine on a shared Vert.x instance (not closed by {@link #close()}). */
    public static Future<SimEngine> start(Vertx vertx, SimConfig config, String name) {
        return start(vertx, config, name, false);
    }

    private static Future<SimEngine> start(Vertx vertx, SimConfig config, String name, boolean ownsVertx) {
        ModelText text;
        try {
            text = config.tokenizer() == null ? ModelText.synthetic(config.charsPerToken())
                    : ModelText.load(config.tokenizer(), config.chatTemplate());
        } catch (IOException | RuntimeException ex) {
            return Future.failedFuture(new IllegalStateException("engine " + name + " cannot load tokenizer "
                    + config.tokenizer() + ": " + ex.getMessage(), ex));
        }
        SimEngine e = new SimEngine(config, vertx, ownsVertx, name, text);
        return vertx.deployVerticle(e.new EngineVerticle()).onFailure(ex -> text.close()).map(id -> {
            e.deploymentId = id;
            LOG.info("engine {} ({}) listening on {}{}", name, config.role().name().toLowerCase(), e.url(),
                    e.bootstrapPort > 0 ? ", bootstrap port " + e.bootstrapPort : "");
            return e;
        });
    }

    static <T> T await(Future<T> f) {
        try {
            return f.toCompletionStage().toCompletableFuture().get(START_TIMEOUT_S, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            throw c instanceof RuntimeException r ? r : new IllegalStateException(c.getMessage(), c);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while starting", e);
        } catch (TimeoutException e) {
            throw new IllegalStateException("engine did not start within " + START_TIMEOUT_S + " s", e);
        }
    }

    public SimConfig config() {
        return config;
    }

    /** The HTTP port actually bound. */
    public int port() {
        return port;
    }

    /** Base URL, e.g. {@code http://127.0.0.1:8000}. */
    public String url() {
        return "http://" + advertisedHost() + ":" + port;
    }

    /** The bootstrap port actually bound (prefill role), or -1. */
    public int bootstrapPort() {
        return bootstrapPort;
    }

    /** Rank 0's KV-event PUB endpoint actually bound (ephemeral port resolved), or null. */
    public String kvEventsEndpoint() {
        List<String> all = kvEventsEndpoints();
        return all.isEmpty() ? null : all.get(0);
    }

    /** Rank 0's replay ROUTER endpoint actually bound, or null. */
    public String kvReplayEndpoint() {
        List<String> all = kvReplayEndpoints();
        return all.isEmpty() ? null : all.get(0);
    }

    /** Every rank's KV-event PUB endpoint, by rank (empty without KV events). */
    public List<String> kvEventsEndpoints() {
        return ranks.stream().filter(r -> r.publisher() != null).map(r -> r.publisher().endpoint()).toList();
    }

    /** Every rank's replay endpoint, by rank (empty without KV events; null entries without replay). */
    public List<String> kvReplayEndpoints() {
        List<String> out = new ArrayList<>();
        for (EngineRank r : ranks) {
            if (r.publisher() != null) {
                out.add(r.publisher().replayEndpoint());
            }
        }
        return out;
    }

    public SimStats stats() {
        return stats;
    }

    public Faults faults() {
        return ctx.faults();
    }

    /** Replaces the active faults (takes effect for the next request). */
    public void setFaults(Faults faults) {
        ctx.setFaults(faults);
    }

    public void resetFaults() {
        ctx.setFaults(Faults.NONE);
    }

    /** Requests running now on every rank (as of the last scheduler steps). */
    public int running() {
        return ranks.stream().mapToInt(r -> r.driver().running()).sum();
    }

    /** Requests waiting now on every rank (as of the last scheduler steps). */
    public int waiting() {
        return ranks.stream().mapToInt(r -> r.driver().waiting()).sum();
    }

    /** Fraction of the KV pool held by live requests, the mean over ranks. */
    public double kvUsage() {
        return ranks.stream().mapToDouble(r -> r.driver().kvUsage()).average().orElse(0);
    }

    /** Data-parallel ranks of this engine. */
    public int dataParallelSize() {
        return ranks.size();
    }

    /** Clears every rank's prefix cache (false while requests are in the engine), as {@code POST /flush_cache}. */
    public boolean flushCache() {
        Promise<Boolean> p = Promise.promise();
        context.runOnContext(v -> {
            boolean ok = true;
            for (EngineRank r : ranks) {
                ok &= r.driver().flushCache();
            }
            p.complete(ok);
        });
        return await(p.future());
    }

    @Override
    public void close() {
        try {
            if (deploymentId != null) {
                await(vertx.undeploy(deploymentId));
            }
        } catch (RuntimeException e) {
            LOG.warn("engine {} did not stop cleanly: {}", name, e.toString());
        } finally {
            closePublishers(ranks);
            text.close();
            if (ownsVertx) {
                await(vertx.close());
            }
        }
    }

    private static void closePublishers(List<EngineRank> ranks) {
        for (EngineRank r : ranks) {
            if (r.publisher() != null) {
                r.publisher().close();
            }
        }
    }

    private String advertisedHost() {
        return config.host().equals("0.0.0.0") ? "127.0.0.1" : config.host();
    }

    /** Builds the engine on its own context so every handler and timer runs there. */
    private final class EngineVerticle extends AbstractVerticle {

        @Override
        public void start(Promise<Void> started) {
            SimEngine.this.context = context;
            OutputGenerator output = new OutputGenerator(config.seed(), text.tokenizer());
            SecureRandom roots = new SecureRandom();
            List<EngineRank> built = new ArrayList<>();
            List<Future<Void>> publishing = new ArrayList<>();
            for (int rank = 0; rank < config.dataParallelSize(); rank++) {
                EngineRank r = EngineRanks.build(config, vertx, output, roots, rank);
                built.add(r);
                if (r.publisher() != null) {
                    publishing.add(Future.fromCompletionStage(r.publisher().start(name + "-dp" + rank), context));
                }
            }
            ranks = List.copyOf(built);
            BootstrapClient bootstrapClient = new BootstrapClient(vertx, vertx.createHttpClient(
                    new HttpClientOptions().setMaxPoolSize(256).setKeepAlive(true)),
                    () -> System.nanoTime() / 1_000_000);
            EngineContext c = new EngineContext(config, vertx, built, text, output, stats,
                    new RoomRegistry(vertx), bootstrapClient, new SplittableRandom(config.seed()),
                    Clock.systemUTC(), name);
            ctx = c;
            Future.all(publishing)
                    .compose(v -> vertx.createHttpServer(serverOptions(config.port()))
                            .requestHandler(new SimHttpServer(c)).listen())
                    .compose(http -> {
                        port = http.actualPort();
                        if (config.bootstrapPort() < 0) {
                            return Future.succeededFuture((HttpServer) null);
                        }
                        return vertx.createHttpServer(serverOptions(config.bootstrapPort())).requestHandler(req -> {
                            if (!c.bootstrapHandles(req)) {
                                req.response().setStatusCode(req.path().equals("/health") ? 200 : 404).end();
                            }
                        }).listen();
                    })
                    .onSuccess(boot -> {
                        bootstrapPort = boot == null ? -1 : boot.actualPort();
                        c.bound(advertisedHost(), port, bootstrapPort);
                        started.complete();
                    })
                    .onFailure(e -> {
                        closePublishers(built);
                        started.fail(new IllegalStateException("engine " + name + " could not start on "
                                + config.host() + ":" + config.port() + ": " + e.getMessage(), e));
                    });
        }

        private HttpServerOptions serverOptions(int p) {
            return new HttpServerOptions().setHost(config.host()).setPort(p).setTcpNoDelay(true)
                    .setCompressionSupported(false);
        }
    }
}
