package dev.caravan.routes;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;

/**
 * An engine for route tests: a Vert.x HTTP server on {@code 127.0.0.1:0}, bound before {@link #start} returns, that
 * answers each request with the handler the test set ({@link #answer}; none: it never answers) and records what it was
 * asked ({@code "POST /v1/chat/completions"}) and how many requests the gateway gave up on (their connection closed
 * before the answer ended). Started once per test class (the gateway's settings name its port); {@link #answer}
 * clears the record for the next test.
 */
final class FakeEngine implements AutoCloseable {

    private final Vertx vertx = Vertx.vertx();
    private final List<String> requests = new CopyOnWriteArrayList<>();
    private final AtomicInteger abandoned = new AtomicInteger();
    private final HttpServer server;
    private volatile Handler<HttpServerRequest> answer = req -> { };

    private FakeEngine() throws Exception {
        server = vertx.createHttpServer().requestHandler(req -> req.body().onSuccess(body -> {
            requests.add(req.method() + " " + req.path());
            req.connection().closeHandler(v -> {
                if (!req.response().ended()) {
                    abandoned.incrementAndGet();
                }
            });
            answer.handle(req);
        })).listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    static FakeEngine start() throws Exception {
        return new FakeEngine();
    }

    /** Answers every later request with {@code handler}; forgets the requests seen so far. */
    FakeEngine answer(Handler<HttpServerRequest> handler) {
        requests.clear();
        abandoned.set(0);
        answer = handler;
        return this;
    }

    /** A handler answering {@code status} with a JSON body. */
    static Handler<HttpServerRequest> json(int status, String body) {
        return req -> req.response().setStatusCode(status).putHeader("content-type", "application/json").end(body);
    }

    String url() {
        return "http://127.0.0.1:" + server.actualPort();
    }

    /** Each request received, as {@code "METHOD /path"}, in arrival order. */
    List<String> requests() {
        return List.copyOf(requests);
    }

    /** Requests whose connection the gateway closed before the engine's answer ended. */
    int abandoned() {
        return abandoned.get();
    }

    @Override
    public void close() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
}
