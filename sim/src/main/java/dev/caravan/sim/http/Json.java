package dev.caravan.sim.http;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;

/** JSON in and out of the simulator's HTTP API, and OpenAI-style error bodies. */
public final class Json {

    /** Shared, thread-safe once configured. */
    public static final ObjectMapper MAPPER = new ObjectMapper();
    private static final TypeReference<Map<String, Object>> OBJECT = new TypeReference<>() {
    };

    private Json() {
    }

    /**
     * Parses a request body into an untyped map (nested maps, lists, strings, numbers, booleans, null).
     *
     * @throws BadRequest when the body is empty, not JSON, or not an object
     */
    public static Map<String, Object> parseObject(Buffer body) {
        if (body == null || body.length() == 0) {
            throw new BadRequest("request body must be a JSON object, was empty");
        }
        try {
            return MAPPER.readValue(body.getBytes(), OBJECT);
        } catch (MismatchedInputException e) {
            throw new BadRequest("request body must be a JSON object");
        } catch (JsonProcessingException e) {
            throw new BadRequest("request body is not valid JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new BadRequest("request body could not be read: " + e.getMessage());
        }
    }

    public static Buffer bytes(Object value) {
        try {
            return Buffer.buffer(MAPPER.writeValueAsBytes(value));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot serialise response", e);
        }
    }

    public static String string(Object value) {
        try {
            return MAPPER.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot serialise response", e);
        }
    }

    /** Writes {@code value} as a complete JSON response. */
    public static void send(HttpServerResponse resp, int status, Object value) {
        if (resp.ended() || resp.closed()) {
            return;
        }
        resp.setStatusCode(status).putHeader("content-type", "application/json").end(bytes(value));
    }

    /** OpenAI's error shape: {@code {"error": {"message", "type", "param", "code"}}}. */
    public static Map<String, Object> error(int status, String message) {
        Map<String, Object> err = new LinkedHashMap<>();
        err.put("message", message);
        err.put("type", errorType(status));
        err.put("param", null);
        err.put("code", status);
        return Map.of("error", err);
    }

    public static void sendError(HttpServerResponse resp, int status, String message) {
        send(resp, status, error(status, message));
    }

    static String errorType(int status) {
        return switch (status) {
            case 400 -> "BadRequestError";
            case 404 -> "NotFoundError";
            case 413 -> "RequestTooLargeError";
            case 429 -> "RateLimitError";
            case 503 -> "ServiceUnavailableError";
            case 504 -> "TimeoutError";
            default -> status < 500 ? "InvalidRequestError" : "InternalServerError";
        };
    }

    /** Helper for building ordered JSON objects. */
    public static Map<String, Object> obj(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }

    /** A JSON list of token ids. */
    public static List<Integer> ids(int[] tokens) {
        return java.util.Arrays.stream(tokens).boxed().toList();
    }
}
