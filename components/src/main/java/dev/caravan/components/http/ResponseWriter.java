package dev.caravan.components.http;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a finished exchange's message as the HTTP response, unless a streaming step already committed it.
 *
 * <p>Status: the {@code CamelHttpResponseCode} header, else 200 (204 without a body). Headers: those the route set,
 * that is message headers that are not Camel-internal, not hop-by-hop, and not echoes of the request (request headers,
 * path and query parameters are in the message too and must not be reflected back — Camel's own writer would copy the
 * client's {@code Authorization} into the response). Body: String, byte[], Vert.x Buffer, or anything Camel converts to a
 * String. An exception left on the exchange becomes a JSON 500 without a stack trace.
 */
final class ResponseWriter {

    private static final Logger LOG = LoggerFactory.getLogger(ResponseWriter.class);

    private static final Set<String> NOT_COPIED = Set.of("content-length", "content-type", "transfer-encoding",
            "connection", "keep-alive", "host", "te", "trailer", "upgrade");

    private ResponseWriter() {
    }

    static Future<Void> write(RoutingContext ctx, Exchange exchange) {
        HttpServerResponse response = ctx.response();
        if (response.ended() || response.headWritten() || Boolean.TRUE.equals(
                exchange.getProperty(HttpExchangeProperties.RESPONSE_COMMITTED, Boolean.class))) {
            return Future.succeededFuture();
        }
        Exception failure = exchange.getException();
        if (failure != null) {
            LOG.error("Unhandled failure in route {}: {}", exchange.getFromRouteId(), failure.toString(), failure);
            exchange.getProperties().put(HttpExchangeProperties.RESPONSE_STATUS, HttpError.INTERNAL.status());
            return writeError(ctx, HttpError.INTERNAL, "the gateway failed to process the request");
        }
        Message message = exchange.getMessage();
        Object body = message.getBody();
        Buffer buffer = toBuffer(exchange, body);
        Integer code = message.getHeader(Exchange.HTTP_RESPONSE_CODE, Integer.class);
        int status = code != null ? code : (buffer == null || buffer.length() == 0 ? 204 : 200);
        response.setStatusCode(status);
        copyHeaders(ctx, message, response);
        String contentType = message.getHeader(Exchange.CONTENT_TYPE, String.class);
        if (contentType != null && buffer != null) {
            response.putHeader("Content-Type", contentType);
        }
        exchange.getProperties().put(HttpExchangeProperties.RESPONSE_STATUS, status);
        return buffer == null ? response.end() : response.end(buffer);
    }

    private static Buffer toBuffer(Exchange exchange, Object body) {
        if (body == null) {
            return null;
        }
        if (body instanceof Buffer b) {
            return b;
        }
        if (body instanceof String s) {
            return Buffer.buffer(s);
        }
        if (body instanceof byte[] bytes) {
            return Buffer.buffer(bytes);
        }
        String s = exchange.getContext().getTypeConverter().tryConvertTo(String.class, exchange, body);
        return s == null ? null : Buffer.buffer(s.getBytes(StandardCharsets.UTF_8));
    }

    private static void copyHeaders(RoutingContext ctx, Message message, HttpServerResponse response) {
        HttpServerRequest request = ctx.request();
        Map<String, String> pathParams = ctx.pathParams();
        for (Map.Entry<String, Object> e : message.getHeaders().entrySet()) {
            String name = e.getKey();
            Object value = e.getValue();
            if (value == null || name.regionMatches(true, 0, "Camel", 0, 5)
                    || NOT_COPIED.contains(name.toLowerCase(Locale.ROOT))
                    || request.headers().contains(name) || pathParams.containsKey(name)
                    || ctx.queryParams().contains(name)) {
                continue;
            }
            if (value instanceof Iterable<?> values) {
                for (Object v : values) {
                    response.headers().add(name, String.valueOf(v));
                }
            } else {
                response.putHeader(name, String.valueOf(value));
            }
        }
    }

    /** Writes the JSON error body for a request no route answered (or that failed outside a route). */
    static Future<Void> writeError(RoutingContext ctx, HttpError error, String message) {
        return writeError(ctx.response(), error, message);
    }

    /** As {@link #writeError(RoutingContext, HttpError, String)}, for a request that never reached a router. */
    static Future<Void> writeError(HttpServerResponse response, HttpError error, String message) {
        if (response.headWritten()) {
            return response.ended() ? Future.succeededFuture() : response.end();
        }
        return response.setStatusCode(error.status())
                .putHeader("Content-Type", ErrorBody.CONTENT_TYPE)
                .putHeader(ErrorBody.ERROR_CODE_HEADER, error.code())
                .end(ErrorBody.json(error, message));
    }
}
