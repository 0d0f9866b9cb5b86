package dev.caravan.components.http;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import io.vertx.ext.web.handler.CorsHandler;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpRouter;
import org.apache.camel.support.service.ServiceSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gateway's own HTTP server: one Vert.x router that only the gateway's routes ({@code caravan-http:} URIs, served
 * by {@link CaravanPlatformHttpEngine}) are added to, listening on the gateway's host and port, on the gateway's own
 * Vert.x instance. Start it once the routes on its router have started and stop it before they stop: a request the
 * router has no route for gets 404, so a server listening while routes come or go answers 404 for paths it serves.
 * Hence do not add it to the Camel context's services, which Camel starts before the route consumers and stops after.
 *
 * <p>Why not Camel's {@code VertxPlatformHttpServer}: in Camel 4.18 one platform-http component sends all its routes to
 * one server (its engine picks the router by port), so a host application's {@code platform-http:} routes and the
 * gateway's would share a server, its dispatch and its metrics; and that server logs a failed {@code listen} and starts
 * anyway. This one is kept apart from the host's (its router is bound under {@link #ROUTER_NAME}, which no Camel server
 * uses) and <b>fails fast</b>: {@link #start()} waits for the socket and throws a {@link ListenException} naming the
 * address and the cause when it cannot be bound, so {@code CamelContext.start()} throws and nothing logs "listening"
 * without a socket behind it.
 *
 * <p>What it answers itself, in the gateway's JSON error shape and counted by the {@link RequestObserver}: unknown paths
 * (404), wrong methods (405), bodies over {@code maxBodySize} (413) ({@link RouterErrorHandlers}), and requests that fail
 * HTTP decoding (431, 414, 400: {@link InvalidRequestHandler}, which Vert.x reads only when a server starts listening,
 * hence a server of our own). With {@code eventLoops > 1} it also listens on that many more event loops
 * ({@link ServerEventLoops}); each of them must bind too.
 */
public final class GatewayHttpServer extends ServiceSupport {

    private static final Logger LOG = LoggerFactory.getLogger(GatewayHttpServer.class);
    /** Distinct negative ports: each server's loops share their own random port, not another server's. */
    private static final AtomicInteger EPHEMERAL_SHARES = new AtomicInteger();

    /** Registry name of the gateway's router, which {@link CaravanPlatformHttpConsumer}s add their routes to. */
    public static final String ROUTER_NAME = "caravan-http-router";

    /** How long {@link #start()} waits for the sockets; binding takes milliseconds, so this only guards a hang. */
    static final long LISTEN_TIMEOUT_SECONDS = 30;

    private final Vertx vertx;
    private final String host;
    private final int port;
    private final int eventLoops;
    private final RequestObserver observer;
    private final UnaryOperator<HttpServerOptions> listenerOptions;
    private final Router router;
    private final VertxPlatformHttpRouter platformRouter;
    private volatile HttpServer server;
    private volatile String extraLoops;

    /**
     * @param vertx       the gateway's Vert.x instance (never the host application's)
     * @param host        the address to bind, e.g. {@code 0.0.0.0}
     * @param port        the port; 0 picks a free one (then the server stays on one event loop)
     * @param maxBodySize largest request body, in bytes (413 above)
     * @param eventLoops  event loops that accept connections, at least 1
     * @param observer    told about every request the server answers itself
     */
    public GatewayHttpServer(Vertx vertx, String host, int port, long maxBodySize, int eventLoops,
                             RequestObserver observer) {
        this(vertx, host, port, maxBodySize, eventLoops, observer, UnaryOperator.identity(), null);
    }

    /**
     * @param listenerOptions completes the options of each listening server, e.g. with the certificate of an HTTPS
     *                        listener ({@code --tls-cert-path})
     * @param cors            the CORS handler every request passes first ({@link CorsPolicy}), or null for none
     */
    public GatewayHttpServer(Vertx vertx, String host, int port, long maxBodySize, int eventLoops,
                             RequestObserver observer, UnaryOperator<HttpServerOptions> listenerOptions,
                             CorsHandler cors) {
        if (eventLoops < 1) {
            throw new IllegalArgumentException("eventLoops must be at least 1, was " + eventLoops);
        }
        this.vertx = vertx;
        this.host = host;
        this.port = port;
        this.eventLoops = eventLoops;
        this.observer = observer;
        this.listenerOptions = listenerOptions;
        this.router = Router.router(vertx);
        if (cors != null) {
            router.route().order(Integer.MIN_VALUE).handler(cors); // before every route: preflights end here
        }
        RouterErrorHandlers.install(router, observer);
        Handler<RoutingContext> body = bodyHandler(maxBodySize);
        this.platformRouter = new VertxPlatformHttpRouter(null, vertx, router, ROUTER_NAME) {
            @Override
            public Handler<RoutingContext> bodyHandler() {
                return body;
            }
        };
    }

    /**
     * Camel's body handling (form attributes merged into the parameters, the body limit) without writing file uploads
     * to disk: the gateway reads JSON bodies only. The consumer pauses the request until its route is in place, so the
     * handler resumes it first, as Camel's does.
     */
    private static Handler<RoutingContext> bodyHandler(long maxBodySize) {
        BodyHandler handler = BodyHandler.create(false).setBodyLimit(maxBodySize).setMergeFormAttributes(true)
                .setPreallocateBodyBuffer(true);
        return ctx -> {
            ctx.request().resume();
            handler.handle(ctx);
        };
    }

    /** The router to bind under {@link #ROUTER_NAME} before the routes start. */
    public VertxPlatformHttpRouter router() {
        return platformRouter;
    }

    public String host() {
        return host;
    }

    /** The port bound (the actual one when configured as 0), or the configured port before the server started. */
    public int port() {
        HttpServer s = server;
        return s != null ? s.actualPort() : port;
    }

    /** True once the sockets are bound, until stopped. */
    public boolean listening() {
        return server != null;
    }

    /**
     * Fails at once when {@code host:port} cannot be bound right now (a quick check before a slow start-up; the
     * server's own {@link #start()} still fails if the port is taken in between). Port 0 always passes.
     *
     * @throws ListenException naming the address and the cause
     */
    public static void checkFree(String host, int port) {
        if (port == 0) {
            return;
        }
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(host, port));
        } catch (IOException | RuntimeException e) {
            throw new ListenException(host + ":" + port, e);
        }
    }

    @Override
    protected void doStart() throws Exception {
        HttpServerOptions options = listenerOptions.apply(new HttpServerOptions());
        HttpServer s = vertx.createHttpServer(options).requestHandler(router)
                .invalidRequestHandler(new InvalidRequestHandler(options, observer));
        int extra = eventLoops - 1;
        // port 0 with several loops: a negative port makes Vert.x bind one random port that the loops share; taking a
        // free port first and binding it later would race with any other server binding port 0 meanwhile
        int listenPort = port == 0 && extra > 0 ? -EPHEMERAL_SHARES.incrementAndGet() : port;
        await(s.listen(listenPort, host), host + ":" + port);
        try {
            extraLoops = await(ServerEventLoops.add(vertx, router, host, listenPort, extra, observer,
                            () -> listenerOptions.apply(new HttpServerOptions())),
                    host + ":" + s.actualPort() + " (" + extra + " more event loop(s))");
        } catch (ListenException e) {
            close(s);
            throw e;
        }
        server = s;
        LOG.info("Caravan gateway listening on {}:{} ({}, {} event loop(s))", host, s.actualPort(),
                options.isSsl() ? "HTTPS" : "HTTP", extra + 1);
    }

    @Override
    protected void doStop() {
        HttpServer s = server;
        server = null;
        String deployment = extraLoops;
        extraLoops = null;
        if (deployment != null) {
            try {
                vertx.undeploy(deployment).toCompletionStage().toCompletableFuture()
                        .get(LISTEN_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException | TimeoutException e) {
                LOG.debug("Extra HTTP server instances did not close cleanly: {}", e.toString());
            }
        }
        if (s != null) {
            close(s);
            LOG.info("Caravan gateway HTTP server on {}:{} stopped", host, s.actualPort());
        }
    }

    private static void close(HttpServer s) {
        try {
            s.close().toCompletionStage().toCompletableFuture().get(LISTEN_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            LOG.debug("HTTP server did not close cleanly: {}", e.toString());
        }
    }

    /** Waits for a listen; its failure becomes a {@link ListenException} naming {@code address} and the cause. */
    private static <T> T await(Future<T> listening, String address) throws InterruptedException {
        try {
            return listening.toCompletionStage().toCompletableFuture().get(LISTEN_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new ListenException(address, e.getCause());
        } catch (TimeoutException e) {
            throw new ListenException(address, new TimeoutException("not bound after " + LISTEN_TIMEOUT_SECONDS + " s"));
        }
    }

    @Override
    public String toString() {
        return "GatewayHttpServer[" + host + ":" + port() + "]";
    }
}
