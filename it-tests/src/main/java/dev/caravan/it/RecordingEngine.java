package dev.caravan.it;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;

/**
 * A minimal engine stand-in that records every request body it receives and answers with a fixed response: for tests
 * that must see exactly what the gateway sent (the simulator does not echo bodies). Binds 127.0.0.1 on an ephemeral
 * port; {@link #close()} stops it.
 */
public final class RecordingEngine implements AutoCloseable {

    /** One received request. */
    public record Received(String path, Map<String, String> headers, JsonNode body) {
    }

    private final Vertx vertx;
    private final HttpServer server;
    private final List<Received> received = new CopyOnWriteArrayList<>();
    private volatile int status = 200;
    private volatile String responseBody = "{\"text\":\"ok\",\"meta_info\":{}}";

    private RecordingEngine(Vertx vertx) {
        this.vertx = vertx;
        this.server = vertx.createHttpServer().requestHandler(this::handle);
    }

    public static RecordingEngine start() {
        RecordingEngine e = new RecordingEngine(Vertx.vertx());
        try {
            e.server.listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        } catch (Exception ex) {
            e.close();
            throw new IllegalStateException("recording engine did not start", ex);
        }
        return e;
    }

    private void handle(HttpServerRequest req) {
        req.body().onSuccess(buf -> {
            Map<String, String> headers = new java.util.TreeMap<>(String.CASE_INSENSITIVE_ORDER);
            req.headers().forEach(h -> headers.put(h.getKey(), h.getValue()));
            received.add(new Received(req.path(), headers, buf.length() == 0 ? null
                    : GatewayClient.parse(buf.toString())));
            req.response().setStatusCode(status).putHeader("Content-Type", "application/json").end(responseBody);
        });
    }

    /** Answers every later request with this status and JSON body. */
    public RecordingEngine respond(int status, String json) {
        this.status = status;
        this.responseBody = json;
        return this;
    }

    public String url() {
        return "http://127.0.0.1:" + server.actualPort();
    }

    public List<Received> received() {
        return List.copyOf(received);
    }

    public void clear() {
        received.clear();
    }

    @Override
    public void close() {
        vertx.close().toCompletionStage().toCompletableFuture().join();
    }
}
