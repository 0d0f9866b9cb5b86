package dev.caravan.components.http;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import org.apache.camel.support.service.ServiceSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The metrics listener of {@code --prometheus-port} / {@code --prometheus-host} (SGLang's: port 29000 by default): a
 * plain HTTP server of its own that answers {@code GET /metrics} with the Prometheus text of the gateway's registry,
 * and 404 for anything else. Keeping scrapes off the gateway's port keeps them out of its admission, auth and request
 * metrics, and lets the port be firewalled apart; the gateway's port still serves {@code /metrics} too.
 *
 * <p>A Camel service that fails fast like the gateway's own server: {@link #start()} waits for the socket and throws a
 * {@link ListenException} naming the address when it cannot bind. Rendering the text takes milliseconds for a large
 * registry, so it runs on a Vert.x worker thread, never on the event loop.
 */
public final class MetricsHttpServer extends ServiceSupport {

    private static final Logger LOG = LoggerFactory.getLogger(MetricsHttpServer.class);

    /** The one path served. */
    public static final String PATH = "/metrics";
    /** Prometheus text exposition format 0.0.4. */
    public static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private final Vertx vertx;
    private final String host;
    private final int port;
    private final Supplier<String> scrape;
    private volatile HttpServer server;

    /**
     * @param port   the port; 0 picks a free one
     * @param scrape renders the registry (called on a worker thread per scrape)
     */
    public MetricsHttpServer(Vertx vertx, String host, int port, Supplier<String> scrape) {
        this.vertx = vertx;
        this.host = host;
        this.port = port;
        this.scrape = scrape;
    }

    /** The port bound (the actual one when configured as 0), or the configured one before the start. */
    public int port() {
        HttpServer s = server;
        return s != null ? s.actualPort() : port;
    }

    public String host() {
        return host;
    }

    @Override
    protected void doStart() throws Exception {
        HttpServer s = vertx.createHttpServer().requestHandler(this::handle);
        String address = host + ":" + port + " (metrics)";
        try {
            s.listen(port, host).toCompletionStage().toCompletableFuture()
                    .get(GatewayHttpServer.LISTEN_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new ListenException(address, e.getCause());
        } catch (TimeoutException e) {
            throw new ListenException(address, e);
        }
        server = s;
        LOG.info("Metrics listening on {}:{}{}", host, s.actualPort(), PATH);
    }

    private void handle(HttpServerRequest req) {
        if (!req.path().equals(PATH)) {
            req.response().setStatusCode(404).end();
            return;
        }
        if (req.method() != HttpMethod.GET && req.method() != HttpMethod.HEAD) {
            req.response().setStatusCode(405).putHeader("Allow", "GET").end();
            return;
        }
        vertx.executeBlocking(scrape::get, false).onComplete(ar -> {
            if (ar.succeeded()) {
                req.response().putHeader("Content-Type", CONTENT_TYPE).end(ar.result());
            } else {
                LOG.warn("Rendering metrics failed: {}", ar.cause().toString());
                req.response().setStatusCode(500).end();
            }
        });
    }

    @Override
    protected void doStop() {
        HttpServer s = server;
        server = null;
        if (s != null) {
            try {
                s.close().toCompletionStage().toCompletableFuture()
                        .get(GatewayHttpServer.LISTEN_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException | TimeoutException e) {
                LOG.debug("Metrics server did not close cleanly: {}", e.toString());
            }
        }
    }

    @Override
    public String toString() {
        return "MetricsHttpServer[" + host + ":" + port() + "]";
    }
}
