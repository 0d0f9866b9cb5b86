package dev.caravan.processors.http;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.impl.VertxInternal;
import io.vertx.core.impl.VertxWrapper;

/**
 * The Vert.x instance handed to Camel's platform-http server: delegates everything to the real instance, except that
 * every {@link HttpServer} it creates answers undecodable requests with {@link InvalidRequestHandler}.
 *
 * <p>Why a wrapper: Vert.x reads {@code HttpServer.invalidRequestHandler} only when the server starts listening, and
 * Camel's {@code VertxPlatformHttpServer} creates its server and listens in one step, keeping the server in a private
 * field — so there is no moment to set the handler on it. What Camel does take from outside is the Vert.x instance
 * (the registry's, or {@code lookupVertx()}), and {@code createHttpServer} is called on that instance. Vert.x provides
 * {@link VertxWrapper} for exactly this kind of delegate; everything else (contexts, timers, deployments, close) goes
 * to the real instance, so identity checks on contexts still hold.
 */
public final class GatewayServerVertx extends VertxWrapper {

    private final RequestObserver observer;

    private GatewayServerVertx(VertxInternal delegate, RequestObserver observer) {
        super(delegate);
        this.observer = observer;
    }

    /**
     * Wraps {@code vertx}; returns it unchanged when it is already wrapped or is not a {@link VertxInternal} (a foreign
     * implementation, whose servers then keep Vert.x's default invalid-request handler).
     */
    public static Vertx wrap(Vertx vertx, RequestObserver observer) {
        if (vertx instanceof GatewayServerVertx || !(vertx instanceof VertxInternal internal)) {
            return vertx;
        }
        return new GatewayServerVertx(internal, observer);
    }

    @Override
    public HttpServer createHttpServer(HttpServerOptions options) {
        return delegate.createHttpServer(options).invalidRequestHandler(new InvalidRequestHandler(options, observer));
    }

    @Override
    public HttpServer createHttpServer() {
        return createHttpServer(new HttpServerOptions());
    }
}
