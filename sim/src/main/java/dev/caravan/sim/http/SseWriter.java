package dev.caravan.sim.http;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;

/**
 * Server-sent events as OpenAI, vLLM and SGLang frame them: each event is one {@code data: <json>\n\n} chunk, and
 * the stream ends with {@code data: [DONE]\n\n}. The 200 head is written with the first event, so an error found
 * before any token (bad bootstrap, timeout) can still be a real HTTP error status. With the
 * {@code drop_after_chunks} fault the connection is closed after that many events.
 */
public final class SseWriter {

    static final Buffer DONE = Buffer.buffer("data: [DONE]\n\n");

    private final HttpServerRequest request;
    private final HttpServerResponse response;
    private final int dropAfterChunks;
    private final Runnable onDrop;
    private int chunks;
    private boolean dropped;

    public SseWriter(HttpServerRequest request, int dropAfterChunks, Runnable onDrop) {
        this.request = request;
        this.response = request.response();
        this.dropAfterChunks = dropAfterChunks;
        this.onDrop = onDrop;
    }

    /** Frames one event payload. */
    public static Buffer frame(String json) {
        return Buffer.buffer(json.length() + 8).appendString("data: ").appendString(json).appendString("\n\n");
    }

    public boolean started() {
        return response.headWritten();
    }

    /** Whether the stream can still be written (client connected, not ended, not dropped). */
    public boolean open() {
        return !dropped && !response.ended() && !response.closed();
    }

    public void event(Object payload) {
        if (open()) {
            eventJson(Json.string(payload));
        }
    }

    /** Frames one already serialised JSON payload. */
    public void eventJson(String json) {
        if (!open()) {
            return;
        }
        if (!response.headWritten()) {
            response.setStatusCode(200).setChunked(true).putHeader("content-type", "text/event-stream")
                    .putHeader("cache-control", "no-cache");
        }
        response.write(frame(json));
        chunks++;
        if (dropAfterChunks >= 0 && chunks >= dropAfterChunks) {
            drop();
        }
    }

    /** One named event ({@code event: <name>\ndata: <json>\n\n}), as the Responses API frames them. */
    public void namedEvent(String name, Object payload) {
        if (!open()) {
            return;
        }
        if (!response.headWritten()) {
            response.setStatusCode(200).setChunked(true).putHeader("content-type", "text/event-stream")
                    .putHeader("cache-control", "no-cache");
        }
        response.write(Buffer.buffer("event: " + name + "\n").appendBuffer(frame(Json.string(payload))));
        chunks++;
        if (dropAfterChunks >= 0 && chunks >= dropAfterChunks) {
            drop();
        }
    }

    /** Ends the response without {@code [DONE]} (the Responses API's streams end with their last event). */
    public void end() {
        if (open()) {
            response.end();
        }
    }

    /** Writes {@code [DONE]} and ends the response. */
    public void done() {
        if (!open()) {
            return;
        }
        if (!response.headWritten()) {
            response.setStatusCode(200).setChunked(true).putHeader("content-type", "text/event-stream");
        }
        response.end(DONE);
    }

    /** Closes the connection without ending the stream (the drop-connection fault). */
    public void drop() {
        if (!dropped) {
            dropped = true;
            onDrop.run();
            request.connection().close();
        }
    }
}
