package dev.caravan.it;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import com.fasterxml.jackson.databind.JsonNode;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;

/**
 * A minimal engine stand-in that records every request body it receives and answers with a fixed response: for tests
 * that must see exactly what the gateway sent (the simulator does not echo bodies), or that need a prefill engine to
 * fail at a precise moment ({@link #answerAfterRoomPoll}). Binds 127.0.0.1 on an ephemeral port (it serves its own
 * bootstrap rooms on it); {@link #close()} stops it.
 */
public final class RecordingEngine implements AutoCloseable {

    /** One received POST (the gateway's health probes and load polls are answered but not recorded). */
    public record Received(String path, Map<String, String> headers, JsonNode body) {
    }

    private final Vertx vertx;
    private final HttpServer server;
    private final List<Received> received = new CopyOnWriteArrayList<>();
    private final List<HttpServerRequest> held = new ArrayList<>();
    private final AtomicInteger roomPolls = new AtomicInteger();
    private volatile int status = 200;
    private volatile String responseBody = "{\"text\":\"ok\",\"meta_info\":{}}";
    private volatile boolean answerAfterRoomPoll;
    private volatile String serverInfo;

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
        String info = serverInfo;
        if (info != null && req.path().equals("/get_server_info")) {
            req.response().putHeader("Content-Type", "application/json").end(info);
            return;
        }
        if (req.path().startsWith("/bootstrap/rooms/")) {
            onRoomPoll(req);
            return;
        }
        req.body().onSuccess(buf -> {
            Map<String, String> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
            req.headers().forEach(h -> headers.put(h.getKey(), h.getValue()));
            if (req.method() == HttpMethod.POST) { // inference; not the gateway's health probes and load polls
                received.add(new Received(req.path(), headers, buf.length() == 0 ? null
                        : GatewayClient.parse(buf.toString())));
            }
            if (answerAfterRoomPoll && roomPolls.get() == 0 && req.method() == HttpMethod.POST) {
                held.add(req); // answered when a decode engine asks for the room (all on this server's event loop)
            } else {
                answer(req);
            }
        });
    }

    private void answer(HttpServerRequest req) {
        req.response().setStatusCode(status).putHeader("Content-Type", "application/json").end(responseBody);
    }

    /**
     * A decode engine long-polls its prefill's bootstrap room: the room stays pending (answered after a second, so
     * the poll repeats), and every held inference request is answered now — so a test knows decode was waiting.
     */
    private void onRoomPoll(HttpServerRequest req) {
        roomPolls.incrementAndGet();
        String room = req.path().substring("/bootstrap/rooms/".length());
        vertx.setTimer(1000, id -> {
            if (!req.response().closed()) {
                req.response().putHeader("Content-Type", "application/json")
                        .end("{\"room\":\"" + room + "\",\"state\":\"pending\"}");
            }
        });
        held.forEach(this::answer);
        held.clear();
    }

    /**
     * Holds every inference request until a decode engine polls this engine's bootstrap room, then answers it: a
     * prefill that fails only once its decode partner is waiting for the KV.
     */
    public RecordingEngine answerAfterRoomPoll(int status, String json) {
        this.status = status;
        this.responseBody = json;
        this.answerAfterRoomPoll = true;
        return this;
    }

    /** How many bootstrap-room polls arrived. */
    public int roomPolls() {
        return roomPolls.get();
    }

    /** Answers {@code GET /get_server_info} with this JSON (as an SGLang engine), apart from the other requests. */
    public RecordingEngine serverInfo(String json) {
        this.serverInfo = json;
        return this;
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
        roomPolls.set(0);
    }

    public int port() {
        return server.actualPort();
    }

    @Override
    public void close() {
        vertx.close().toCompletionStage().toCompletableFuture().join();
    }
}
