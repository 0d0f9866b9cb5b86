package dev.caravan.it;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;

/**
 * A scripted stand-in for an engine when a test needs behaviour the simulator does not have (a health endpoint that
 * follows a pattern, a stream that stalls after two chunks, a record of the headers it received): a Vert.x server on
 * 127.0.0.1 and an ephemeral port whose every request goes to the test's handler.
 *
 * <pre>{@code
 * try (StubEngine stub = StubEngine.start(req -> req.response().end("ok"))) { stub.url(); }
 * }</pre>
 */
public final class StubEngine implements AutoCloseable {

    private final Vertx vertx;
    private final HttpServer server;

    private StubEngine(Vertx vertx, HttpServer server) {
        this.vertx = vertx;
        this.server = server;
    }

    public static StubEngine start(Handler<HttpServerRequest> handler) {
        Vertx vertx = Vertx.vertx();
        try {
            HttpServer server = vertx.createHttpServer().requestHandler(handler).listen(0, "127.0.0.1")
                    .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
            return new StubEngine(vertx, server);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            vertx.close();
            throw new IllegalStateException(e);
        } catch (ExecutionException | TimeoutException e) {
            vertx.close();
            throw new IllegalStateException("stub engine did not start", e);
        }
    }

    public String url() {
        return "http://127.0.0.1:" + server.actualPort();
    }

    public Vertx vertx() {
        return vertx;
    }

    @Override
    public void close() {
        vertx.close();
    }
}
