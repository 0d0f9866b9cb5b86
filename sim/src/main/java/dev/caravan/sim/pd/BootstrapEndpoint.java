package dev.caravan.sim.pd;

import java.nio.charset.StandardCharsets;
import java.util.Map;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;

/**
 * The prefill engine's bootstrap endpoint: {@code GET /bootstrap/rooms/{room}?wait_ms=N} answers
 * {@code {"room", "state": "pending"|"ready"|"failed", "prompt_tokens"?, "reason"?}}, holding the request up to
 * {@code wait_ms} (at most {@value #MAX_WAIT_MS}) while the room is pending. Served on the bootstrap port (prefill
 * role) and on the engine's HTTP port (for vLLM-style {@code kv_transfer_params}).
 */
public final class BootstrapEndpoint {

    public static final String ROOMS_PATH = "/bootstrap/rooms/";
    static final long MAX_WAIT_MS = 30_000;
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final RoomRegistry rooms;

    public BootstrapEndpoint(RoomRegistry rooms) {
        this.rooms = rooms;
    }

    /** True when the request was a bootstrap request (and is now being answered). */
    public boolean handle(HttpServerRequest req) {
        String path = req.path();
        if (!path.startsWith(ROOMS_PATH) || req.method() != HttpMethod.GET) {
            return false;
        }
        String room = path.substring(ROOMS_PATH.length());
        long waitMs = 0;
        String w = req.getParam("wait_ms");
        if (w != null) {
            try {
                waitMs = Math.min(MAX_WAIT_MS, Math.max(0, Long.parseLong(w)));
            } catch (NumberFormatException e) {
                req.response().setStatusCode(400).end("wait_ms must be an integer, was " + w);
                return true;
            }
        }
        if (room.isEmpty()) {
            req.response().setStatusCode(400).end("room must be set");
            return true;
        }
        rooms.await(room, waitMs, body -> reply(req, body));
        return true;
    }

    private static void reply(HttpServerRequest req, Map<String, Object> body) {
        if (req.response().ended() || req.response().closed()) {
            return;
        }
        try {
            req.response().putHeader("content-type", "application/json")
                    .end(new String(MAPPER.writeValueAsBytes(body), StandardCharsets.UTF_8));
        } catch (JsonProcessingException e) {
            req.response().setStatusCode(500).end();
        }
    }
}
