package dev.caravan.components.http;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

import io.vertx.core.AbstractVerticle;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Spreads the gateway's HTTP server over several Vert.x event loops.
 *
 * <p>Why: {@link GatewayHttpServer} creates its main {@code HttpServer} outside any verticle, so every client connection
 * — and, since the upstream client runs on the caller's context, every upstream connection — would live on a single
 * event loop: one core would serve the whole data plane. Vert.x shares a listening socket between server instances
 * created on the same host and port in different contexts and deals new connections to them in turn, so this deploys
 * {@code instances} verticles that each listen on the gateway's port with the gateway's router as handler. The router
 * (and the Camel consumers behind it) is safe to use from several event loops. Like the main server, each answers
 * undecodable requests with {@link InvalidRequestHandler}. A deployment whose servers cannot bind fails.
 *
 * <p>Sharing needs a concrete port or a negative one: with "port 0" each server would bind its own random port, while
 * servers listening on the same negative port share one random port (Vert.x 4), which is how the gateway serves port 0
 * on several loops. Closing the deployment closes these servers and their connections, so undeploy only after the
 * routes have drained.
 */
public final class ServerEventLoops {

    private static final Logger LOG = LoggerFactory.getLogger(ServerEventLoops.class);

    private ServerEventLoops() {
    }

    /**
     * Adds server instances; completes with the deployment id (undeploy it to remove them).
     *
     * @param instances extra instances, each on its own event loop; 0 adds none
     * @param observer  told about requests that failed HTTP decoding (the router reports the others)
     */
    public static Future<String> add(Vertx vertx, Handler<HttpServerRequest> router, String host, int port,
                                     int instances, RequestObserver observer) {
        return add(vertx, router, host, port, instances, observer, HttpServerOptions::new);
    }

    /**
     * @param options the options of each instance (those of the first server: TLS included)
     */
    public static Future<String> add(Vertx vertx, Handler<HttpServerRequest> router, String host, int port,
                                     int instances, RequestObserver observer,
                                     java.util.function.Supplier<HttpServerOptions> options) {
        if (instances <= 0) {
            return Future.succeededFuture(null);
        }
        return vertx.deployVerticle(() -> new AbstractVerticle() {
            @Override
            public void start(Promise<Void> started) {
                HttpServerOptions o = options.get();
                vertx.createHttpServer(o).requestHandler(router)
                        .invalidRequestHandler(new InvalidRequestHandler(o, observer))
                        .listen(port, host).<Void>mapEmpty().onComplete(started);
            }
        }, new DeploymentOptions().setInstances(instances)).onSuccess(id ->
                LOG.info("HTTP server on {}:{} now accepts on {} more event loop(s)", host, port, instances));
    }

    /** A port that was free a moment ago on {@code host}, for servers that must share one concrete port. */
    public static int freePort(String host) {
        try (ServerSocket s = new ServerSocket()) {
            s.setReuseAddress(true);
            s.bind(new InetSocketAddress(host, 0));
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port on " + host, e);
        }
    }
}
