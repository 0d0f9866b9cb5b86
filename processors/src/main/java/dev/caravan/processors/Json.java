package dev.caravan.processors;

import java.io.IOException;
import java.util.Map;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.camel.Exchange;

import dev.caravan.processors.error.GatewayError;

/**
 * JSON in and out for the admin and control-plane steps (one shared, thread-safe {@link ObjectMapper}). Parse failures
 * become 400 {@code invalid_json} naming the problem; bodies are plain Java maps and lists.
 */
public final class Json {

    public static final String CONTENT_TYPE = "application/json";

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() {
    };

    private Json() {
    }

    public static String write(Object value) {
        try {
            return MAPPER.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot render JSON: " + e.getOriginalMessage(), e);
        }
    }

    /** Parses a request body that must be a JSON object. */
    public static Map<String, Object> parseObject(byte[] bytes) {
        if (bytes == null || bytes.length == 0) {
            throw GatewayError.INVALID_JSON.exception("request body is empty; expected a JSON object");
        }
        try {
            Object v = MAPPER.readValue(bytes, Object.class);
            if (!(v instanceof Map)) {
                throw GatewayError.INVALID_JSON.exception("request body must be a JSON object");
            }
            return MAPPER.convertValue(v, MAP);
        } catch (JsonProcessingException e) {
            throw GatewayError.INVALID_JSON.exception("request body is not valid JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw GatewayError.INVALID_JSON.exception("request body could not be read: " + e.getMessage());
        }
    }

    /** Parses an upstream body leniently: null when it is not JSON. */
    public static JsonNode tree(String body) {
        if (body == null || body.isBlank()) {
            return null;
        }
        try {
            return MAPPER.readTree(body);
        } catch (IOException e) {
            return null;
        }
    }

    /** Sets a JSON response on the exchange. */
    public static void respond(Exchange exchange, int status, Object body) {
        var msg = exchange.getMessage();
        msg.setHeader(Exchange.HTTP_RESPONSE_CODE, status);
        msg.setHeader(Exchange.CONTENT_TYPE, CONTENT_TYPE);
        msg.setBody(write(body));
    }

    /** True for {@code application/json} and {@code application/*+json}, parameters ignored. */
    public static boolean isJsonContentType(String contentType) {
        if (contentType == null) {
            return false;
        }
        if (contentType.equalsIgnoreCase("application/json")) {
            return true; // what nearly every request sends: no lower-cased copy, no substring
        }
        String ct = contentType.toLowerCase(java.util.Locale.ROOT);
        int semi = ct.indexOf(';');
        String mime = (semi >= 0 ? ct.substring(0, semi) : ct).trim();
        return mime.equals("application/json") || (mime.startsWith("application/") && mime.endsWith("+json"));
    }

    /**
     * The request's JSON object body; 415 unless the content type is JSON and the body uncompressed, 400 unless the
     * body is a JSON object.
     */
    public static Map<String, Object> requestObject(Exchange exchange) {
        String contentType = exchange.getIn().getHeader(Exchange.CONTENT_TYPE, String.class);
        if (!isJsonContentType(contentType)) {
            throw GatewayError.UNSUPPORTED_MEDIA_TYPE.exception("Content-Type must be application/json, was "
                    + (contentType == null ? "missing" : "'" + contentType + "'"));
        }
        requireIdentityEncoding(exchange);
        return parseObject(bodyBytes(exchange));
    }

    /**
     * 415 for a request body with a {@code Content-Encoding} (gzip, deflate, ...): the gateway reads and forwards
     * bodies as they are, and engines take JSON uncompressed (RFC 7694: 415 for an unsupported content coding).
     */
    public static void requireIdentityEncoding(Exchange exchange) {
        String encoding = exchange.getIn().getHeader("Content-Encoding", String.class);
        if (encoding != null && !encoding.isBlank() && !encoding.trim().equalsIgnoreCase("identity")) {
            throw GatewayError.UNSUPPORTED_MEDIA_TYPE.exception("Content-Encoding '" + encoding
                    + "' is not supported; send the request body uncompressed");
        }
    }

    /** The exchange's body as bytes (a platform-http body is a Vert.x Buffer). */
    public static byte[] bodyBytes(Exchange exchange) {
        Object body = exchange.getIn().getBody();
        if (body == null) {
            return new byte[0];
        }
        if (body instanceof io.vertx.core.buffer.Buffer b) {
            return b.getBytes();
        }
        if (body instanceof byte[] bytes) {
            return bytes;
        }
        return exchange.getIn().getBody(byte[].class);
    }
}
