package dev.caravan.processors.forward;

import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.vertx.core.MultiMap;

/**
 * Which headers cross the gateway, in each direction (SGLang's {@code header_utils} rules, RFC 9110 §7.6.1).
 *
 * <p>Request: the exchange's message headers — the client's request headers as platform-http put them there, plus or
 * minus whatever a YAML step set or removed ({@code setHeader}, {@code removeHeader}) — except Camel's own
 * ({@code Camel*}), query and path parameters (platform-http copies those into headers too), hop-by-hop headers,
 * {@code host}, {@code content-length} (recomputed), {@code accept-encoding} (so engines answer uncompressed and the
 * gateway can read {@code usage}), {@code expect}, and any header named in the client's {@code Connection} header.
 * {@code authorization} is kept unless a worker or gateway key replaces it. {@code X-Request-Id} is set to the request
 * id.
 *
 * <p>Response: everything except hop-by-hop headers; {@code content-length} is kept (the bytes pass unchanged).
 */
public final class UpstreamHeaders {

    /** Headers that describe one connection, never the message. */
    static final Set<String> HOP_BY_HOP = Set.of("connection", "keep-alive", "proxy-connection", "transfer-encoding",
            "te", "trailer", "trailers", "upgrade", "proxy-authenticate", "proxy-authorization");

    private static final Set<String> REQUEST_DROPPED = Set.of("host", "content-length", "accept-encoding", "expect",
            "x-request-id");

    public static final String REQUEST_ID = "X-Request-Id";

    private static final String CONNECTION = "connection";

    /**
     * {@link #HOP_BY_HOP} and {@link #REQUEST_DROPPED} by name length: every request's headers are checked against
     * them, and matching within one length ignoring case needs no lower-cased copy of each name.
     */
    private static final String[][] DROPPED_BY_LENGTH = byLength(HOP_BY_HOP, REQUEST_DROPPED);

    /** {@link #HOP_BY_HOP} by name length, for every response's headers. */
    private static final String[][] HOP_BY_HOP_BY_LENGTH = byLength(HOP_BY_HOP);

    private UpstreamHeaders() {
    }

    /**
     * Upstream headers from the Camel message's headers.
     *
     * @param message   the message headers (case-insensitive map)
     * @param notHeaders names that are parameters, not headers (the request's query and path parameter names that the
     *                   client did not also send as headers)
     * @param apiKey    the key to send as {@code Authorization: Bearer ...}, or null to keep the client's
     * @param requestId the request id to send as {@code X-Request-Id}
     */
    public static MultiMap forRequest(Map<String, Object> message, Set<String> notHeaders, String apiKey,
                                      String requestId) {
        Object connection = null;
        MultiMap out = MultiMap.caseInsensitiveMultiMap();
        for (Map.Entry<String, Object> e : message.entrySet()) {
            String name = e.getKey();
            Object value = e.getValue();
            if (value == null || camels(name) || notHeaders.contains(name)) {
                continue;
            }
            if (droppedFromRequest(name)) {
                if (CONNECTION.equalsIgnoreCase(name)) {
                    connection = value;
                }
                continue;
            }
            if (apiKey != null && name.equalsIgnoreCase("authorization")) {
                continue;
            }
            if (value instanceof Iterable<?> values) {
                for (Object v : values) {
                    if (isText(v)) {
                        out.add(name, v.toString());
                    }
                }
            } else if (isText(value)) {
                out.add(name, value.toString());
            }
        }
        if (connection instanceof String c) {
            tokens(c).forEach(out::remove); // the headers the client's Connection header names: hop-by-hop too
        }
        return finish(out, apiKey, requestId);
    }

    /** Camel's own header ({@code Camel...}, in any case): most of a request's message headers are. */
    private static boolean camels(String name) {
        return name.startsWith("Camel") || (name.length() >= 5 && (name.charAt(0) | 0x20) == 'c'
                && name.regionMatches(true, 0, "Camel", 0, 5));
    }

    /** One of {@link #HOP_BY_HOP} or {@link #REQUEST_DROPPED}, in any case. */
    static boolean droppedFromRequest(String name) {
        return among(DROPPED_BY_LENGTH, name);
    }

    /** Whether {@code name} is, ignoring case, one of the names {@code byLength} holds. */
    private static boolean among(String[][] byLength, String name) {
        if (name.length() >= byLength.length) {
            return false;
        }
        for (String candidate : byLength[name.length()]) {
            if (name.equalsIgnoreCase(candidate)) {
                return true;
            }
        }
        return false;
    }

    @SafeVarargs
    private static String[][] byLength(Set<String>... sets) {
        int longest = 0;
        for (Set<String> set : sets) {
            for (String name : set) {
                longest = Math.max(longest, name.length());
            }
        }
        String[][] out = new String[longest + 1][0];
        for (Set<String> set : sets) {
            for (String name : set) {
                String[] same = out[name.length()];
                out[name.length()] = java.util.Arrays.copyOf(same, same.length + 1);
                out[name.length()][same.length] = name;
            }
        }
        return out;
    }

    private static boolean isText(Object v) {
        return v instanceof CharSequence || v instanceof Number || v instanceof Boolean;
    }

    private static MultiMap finish(MultiMap out, String apiKey, String requestId) {
        if (apiKey != null) {
            out.set("Authorization", "Bearer " + apiKey);
        }
        if (requestId != null) {
            out.set(REQUEST_ID, requestId);
        }
        return out;
    }

    /** Copies the upstream response's end-to-end headers into {@code target}. */
    public static void copyResponse(MultiMap upstream, MultiMap target) {
        Set<String> named = connectionTokens(upstream);
        for (Map.Entry<String, String> e : upstream) {
            String name = e.getKey();
            if (!among(HOP_BY_HOP_BY_LENGTH, name)
                    && (named.isEmpty() || !named.contains(name.toLowerCase(Locale.ROOT)))) {
                target.add(name, e.getValue());
            }
        }
    }

    /**
     * Sets the headers a step asked every response of the request to carry ({@code RESPONSE_HEADERS}: a rate-limited
     * tenant's {@code x-ratelimit-*}), replacing an engine's of the same name.
     */
    public static void addResponseHeaders(org.apache.camel.Exchange exchange, MultiMap target) {
        Map<String, String> extra = dev.caravan.processors.CaravanExchangeProperties.RESPONSE_HEADERS.get(exchange);
        if (extra != null) {
            extra.forEach(target::set);
        }
    }

    private static Set<String> connectionTokens(MultiMap headers) {
        String connection = headers.get(HttpHeaderNames.CONNECTION); // its hash is computed once, not per response
        return connection == null ? Set.of() : tokens(connection);
    }

    private static Set<String> tokens(String connection) {
        if (connection.isEmpty()) {
            return Set.of();
        }
        Set<String> out = new HashSet<>();
        for (String token : connection.split(",")) {
            String t = token.trim().toLowerCase(Locale.ROOT);
            if (!t.isEmpty()) {
                out.add(t);
            }
        }
        return out;
    }
}
