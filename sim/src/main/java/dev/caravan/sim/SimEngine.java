package dev.caravan.sim;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.caravan.policies.kv.BlockHasher;
import dev.caravan.policies.text.PseudoTokenizer;
import dev.caravan.sim.engine.EngineCore;
import dev.caravan.sim.engine.EngineDriver;
import dev.caravan.sim.engine.OutputGenerator;
import dev.caravan.sim.engine.PrefixCache;
import dev.caravan.sim.engine.TimeModel;
import dev.caravan.sim.http.EngineContext;
import dev.caravan.sim.http.SimHttpServer;
import dev.caravan.sim.kv.KvEvent;
import dev.caravan.sim.kv.KvEventEncoder;
import dev.caravan.sim.kv.KvEventPublisher;
import dev.caravan.sim.pd.BootstrapClient;
import dev.caravan.sim.pd.RoomRegistry;

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
 * request), its scheduler and prefix cache, an optional KV-event publisher, and for the prefill role a bootstrap
 * endpoint.
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
    private volatile EngineContext ctx;
    private volatile KvEventPublisher publisher;
    private volatile String deploymentId;
    private volatile int port;
    private volatile int bootstrapPort = -1;
    private volatile EngineDriver driver;
    private volatile Context context;

    private SimEngine(SimConfig config, Vertx vertx, boolean ownsVertx, String name) {
        this.config = config;
        this.vertx = vertx;
        this.ownsVertx = ownsVertx;
        this.name = name;
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
        SimEngine e = new SimEngine(config, vertx, ownsVertx, name);
        return vertx.deployVerticle(e.new EngineVerticle()).map(id -> {
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

    /** The KV-event PUB endpoint actually bound (ephemeral port resolved), or null. */
    public String kvEventsEndpoint() {
        return publisher == null ? null : publisher.endpoint();
    }

    /** The replay ROUTER endpoint actually bound, or null. */
    public String kvReplayEndpoint() {
        return publisher == null ? null : publisher.replayEndpoint();
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

    /** Requests running now (as of the last scheduler step). */
    public int running() {
        return driver.running();
    }

    /** Requests waiting now (as of the last scheduler step). */
    public int waiting() {
        return driver.waiting();
    }

    /** Fraction of the KV pool held by live requests. */
    public double kvUsage() {
        return driver.kvUsage();
    }

    /** Clears the prefix cache (false while requests are in the engine), as {@code POST /flush_cache}. */
    public boolean flushCache() {
        Promise<Boolean> p = Promise.promise();
        context.runOnContext(v -> p.complete(driver.flushCache()));
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
            if (publisher != null) {
                publisher.close();
            }
            if (ownsVertx) {
                await(vertx.close());
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
            PseudoTokenizer tokenizer = new PseudoTokenizer(config.charsPerToken());
            BlockHasher hasher = new BlockHasher(config.blockSize(), config.hashSeed());
            OutputGenerator output = new OutputGenerator(config.seed(), tokenizer);
            List<KvEvent> events = new ArrayList<>();
            PrefixCache cache = new PrefixCache(config.blockSize(), config.kvCapacityBlocks(), events);
            KvEventPublisher pub = config.kvEventsEndpoint() == null ? null
                    : new KvEventPublisher(config.kvEventsEndpoint(), config.kvReplayEndpoint(), config.kvEventsTopic(),
                    new KvEventEncoder(config.kvEventsLayout()), config.kvReplayBufferSteps(), Clock.systemUTC());
            publisher = pub;
            EngineCore core = new EngineCore(new TimeModel(config.prefillTokensPerSec(), config.prefillOverheadMs(),
                    config.decodeMsPerToken()), cache, events, hasher, output, config.maxRunning(),
                    pub == null ? batch -> { } : pub::publish);
            driver = new EngineDriver(vertx, core, config.timeScale(), System::nanoTime);
            BootstrapClient bootstrapClient = new BootstrapClient(vertx, vertx.createHttpClient(
                    new HttpClientOptions().setMaxPoolSize(256).setKeepAlive(true)),
                    () -> System.nanoTime() / 1_000_000);
            EngineContext c = new EngineContext(config, vertx, driver, tokenizer, output, stats,
                    new RoomRegistry(vertx), bootstrapClient, pub, new SplittableRandom(config.seed()),
                    Clock.systemUTC(), name);
            ctx = c;
            Future<Void> kv = pub == null ? Future.succeededFuture()
                    : Future.fromCompletionStage(pub.start(name), context);
            kv.compose(v -> vertx.createHttpServer(serverOptions(config.port()))
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
                        if (pub != null) {
                            pub.close();
                        }
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
