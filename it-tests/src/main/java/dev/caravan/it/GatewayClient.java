package dev.caravan.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * A small blocking HTTP/1.1 client for tests (the JDK's {@link HttpClient}): JSON requests, and streamed responses with
 * the arrival time of every line so tests can check that a stream really arrives incrementally.
 */
public final class GatewayClient {

    /** Shared JSON mapper for request bodies and response parsing. */
    public static final ObjectMapper JSON = new ObjectMapper();

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    private final String base;

    public GatewayClient(String base) {
        this.base = base;
    }

    /** One line of a streamed body and when it arrived ({@link System#nanoTime()}). */
    public record Line(long nanos, String text) {
    }

    /** A streamed response: status, headers, and the body's non-empty lines with arrival times. */
    public record Streamed(int status, Map<String, List<String>> headers, List<Line> lines) {

        /** The {@code data:} payloads, in order. */
        public List<String> data() {
            return lines.stream().map(Line::text).filter(t -> t.startsWith("data:"))
                    .map(t -> t.substring(5).trim()).toList();
        }

        public String header(String name) {
            return headers.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name))
                    .flatMap(e -> e.getValue().stream()).findFirst().orElse(null);
        }
    }

    public static String json(Object value) {
        try {
            return JSON.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(e);
        }
    }

    public static JsonNode parse(String body) {
        try {
            return JSON.readTree(body);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not JSON: " + body, e);
        }
    }

    private HttpRequest.Builder request(String path, String... headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(TIMEOUT);
        for (int i = 0; i + 1 < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return b;
    }

    /** POST with {@code Content-Type: application/json}. */
    public HttpResponse<String> postJson(String path, String body, String... headers) {
        return send(request(path, headers).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build());
    }

    /** POST with any content type (or none when null). */
    public HttpResponse<String> post(String path, String contentType, String body, String... headers) {
        HttpRequest.Builder b = request(path, headers).POST(HttpRequest.BodyPublishers.ofString(body));
        if (contentType != null) {
            b.header("Content-Type", contentType);
        }
        return send(b.build());
    }

    public HttpResponse<String> get(String path, String... headers) {
        return send(request(path, headers).GET().build());
    }

    public HttpResponse<String> putJson(String path, String body) {
        return send(request(path).header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(body)).build());
    }

    public HttpResponse<String> delete(String path) {
        return send(request(path).DELETE().build());
    }

    /** POSTs JSON and reads the response line by line, timestamping each line as it arrives. */
    public Streamed stream(String path, String body) {
        return stream(path, body, new ArrayList<>());
    }

    /**
     * As {@link #stream(String, String)}, adding each line to {@code received} as it arrives, so a test still sees what
     * came before a stream that breaks with an I/O error (thrown as {@link UncheckedIOException}).
     */
    public Streamed stream(String path, String body, List<Line> received) {
        HttpRequest req = request(path).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        try {
            HttpResponse<java.util.stream.Stream<String>> r = HTTP.send(req, HttpResponse.BodyHandlers.ofLines());
            r.body().forEach(l -> {
                if (!l.isEmpty()) {
                    received.add(new Line(System.nanoTime(), l));
                }
            });
            return new Streamed(r.statusCode(), r.headers().map(), List.copyOf(received));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static HttpResponse<String> send(HttpRequest req) {
        try {
            return HTTP.send(req, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
