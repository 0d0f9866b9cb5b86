package dev.caravan.processors.request;

import static dev.caravan.processors.CaravanExchangeProperties.CLIENT_REQUEST;
import static dev.caravan.processors.CaravanExchangeProperties.MODEL;
import static dev.caravan.processors.CaravanExchangeProperties.REQUEST_BODY;
import static dev.caravan.processors.CaravanExchangeProperties.REQUEST_ID;
import static dev.caravan.processors.CaravanExchangeProperties.REQUEST_JSON;
import static dev.caravan.processors.CaravanExchangeProperties.REQUEST_KIND;
import static dev.caravan.processors.CaravanExchangeProperties.STREAM;
import static dev.caravan.processors.CaravanExchangeProperties.UPSTREAM_PATH;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.apache.camel.component.platform.http.vertx.HttpMessage;

import dev.caravan.processors.Json;
import dev.caravan.processors.error.GatewayError;

/**
 * Route step {@code parseRequest}: validates and parses an inference request's JSON body.
 *
 * <p>Rejects, with the gateway's JSON error: a content type other than {@code application/json} (or {@code +json}),
 * including a missing one and curl's default {@code application/x-www-form-urlencoded} (415); a compressed body (a
 * {@code Content-Encoding} other than {@code identity}: 415); an empty or malformed body,
 * or a body that is not a JSON object (400 {@code invalid_json}); {@code model} that is not a string or {@code stream}
 * that is not a boolean (400 {@code invalid_request}). Malformed UTF-8, anything after the object, and nesting deeper
 * than the configured depth are {@code invalid_json} too. Oversized bodies never get here (413 from the HTTP layer).
 *
 * <p>Reads {@code caravanRequestKind} (set by the ingress route). Writes {@code CLIENT_REQUEST}, {@code REQUEST_BODY} (the
 * bytes as received, forwarded unchanged), {@code REQUEST_JSON}, {@code MODEL}, {@code STREAM}, {@code REQUEST_ID} (from
 * the first configured request-id header present, else generated with the kind's SGLang prefix), and
 * {@code UPSTREAM_PATH} (the kind's API path plus the client's query) unless the route already set it.
 */
public final class ParseRequestProcessor implements Processor {

    /** Jackson's own default; the gateway passes {@code --max-json-nesting-depth}. */
    public static final int DEFAULT_MAX_NESTING_DEPTH = 1000;
    private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() {
    };
    private static final char[] ID_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789".toCharArray();
    private static final int ID_LENGTH = 24;
    private static final int DIGITS_PER_DRAW = 12;
    /** 36^12: every string of 12 of {@link #ID_CHARS} equally likely from one draw below it. */
    private static final long DRAW_BOUND = 4_738_381_338_321_616_896L;

    private final List<String> requestIdHeaders;
    private final Supplier<RandomGenerator> random;
    /** Bound to the map type once: {@code mapper.readValue(bytes, MAP)} resolves the type reference per call. */
    private final ObjectReader reader;

    /**
     * @param requestIdHeaders headers whose value is the request id (first present wins)
     * @param random           source of generated request ids (per call, e.g. {@code ThreadLocalRandom::current})
     */
    public ParseRequestProcessor(List<String> requestIdHeaders, Supplier<RandomGenerator> random) {
        this(requestIdHeaders, random, DEFAULT_MAX_NESTING_DEPTH);
    }

    /**
     * @param maxNestingDepth deepest JSON nesting accepted (Jackson's {@code StreamReadConstraints}); deeper → 400
     */
    public ParseRequestProcessor(List<String> requestIdHeaders, Supplier<RandomGenerator> random, int maxNestingDepth) {
        this.requestIdHeaders = List.copyOf(requestIdHeaders);
        this.random = random;
        JsonFactory factory = JsonFactory.builder()
                .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(maxNestingDepth).build())
                .build();
        // a body with anything after its object ({...}}) is malformed, not an object followed by noise to ignore
        this.reader = new ObjectMapper(factory).enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).readerFor(MAP);
    }

    @Override
    public void process(Exchange exchange) throws Exception {
        RequestKind kind = RequestKind.parse(REQUEST_KIND.get(exchange));
        HttpServerRequest request = exchange.getIn() instanceof HttpMessage m ? m.getRequest() : null;
        if (request != null) {
            CLIENT_REQUEST.set(exchange, request);
        }
        String contentType = exchange.getIn().getHeader(Exchange.CONTENT_TYPE, String.class);
        if (!Json.isJsonContentType(contentType)) {
            throw GatewayError.UNSUPPORTED_MEDIA_TYPE.exception("Content-Type must be application/json, was "
                    + (contentType == null ? "missing" : "'" + contentType + "'"));
        }
        Json.requireIdentityEncoding(exchange);
        byte[] bytes = bytesOf(exchange);
        Map<String, Object> json = parse(bytes);
        REQUEST_BODY.set(exchange, exchange.getIn().getBody() instanceof Buffer b ? b : Buffer.buffer(bytes));
        REQUEST_JSON.set(exchange, json);

        Object model = json.get("model");
        if (model != null && !(model instanceof String)) {
            throw GatewayError.INVALID_REQUEST.exception("model must be a string");
        }
        MODEL.set(exchange, (String) model);
        Object stream = json.get("stream");
        if (stream != null && !(stream instanceof Boolean)) {
            throw GatewayError.INVALID_REQUEST.exception("stream must be a boolean");
        }
        STREAM.set(exchange, Boolean.TRUE.equals(stream));
        REQUEST_ID.set(exchange, requestId(exchange, kind));
        if (UPSTREAM_PATH.get(exchange) == null) {
            String query = request != null ? request.query() : null;
            UPSTREAM_PATH.set(exchange,
                    query == null || query.isEmpty() ? kind.upstreamPath() : kind.upstreamPath() + "?" + query);
        }
    }

    private static byte[] bytesOf(Exchange exchange) {
        Object body = exchange.getIn().getBody();
        if (body instanceof Buffer b) {
            return b.getBytes();
        }
        if (body instanceof byte[] bytes) {
            return bytes;
        }
        if (body == null) {
            return new byte[0];
        }
        return exchange.getIn().getBody(byte[].class);
    }

    private Map<String, Object> parse(byte[] bytes) {
        if (bytes == null || bytes.length == 0) {
            throw GatewayError.INVALID_JSON.exception("request body is empty; expected a JSON object");
        }
        int first = 0;
        while (first < bytes.length && Character.isWhitespace(bytes[first])) {
            first++;
        }
        if (first == bytes.length || bytes[first] != '{') {
            throw GatewayError.INVALID_JSON.exception("request body must be a JSON object");
        }
        try {
            return reader.readValue(bytes);
        } catch (JsonProcessingException e) {
            throw GatewayError.INVALID_JSON.exception("request body is not valid JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw GatewayError.INVALID_JSON.exception("request body could not be read: " + e.getMessage());
        }
    }

    private String requestId(Exchange exchange, RequestKind kind) {
        for (String header : requestIdHeaders) {
            String v = exchange.getIn().getHeader(header, String.class);
            if (v != null && !v.isBlank()) {
                return v.trim();
            }
        }
        RandomGenerator r = random.get();
        char[] id = new char[ID_LENGTH];
        for (int i = 0; i < ID_LENGTH; i += DIGITS_PER_DRAW) {
            // one uniform draw of 12 base-36 digits instead of 12 draws of one (36^12 < 2^63)
            long draw = r.nextLong(DRAW_BOUND);
            for (int j = i; j < i + DIGITS_PER_DRAW; j++) {
                id[j] = ID_CHARS[(int) (draw % ID_CHARS.length)];
                draw /= ID_CHARS.length;
            }
        }
        return kind.idPrefix() + new String(id);
    }
}
