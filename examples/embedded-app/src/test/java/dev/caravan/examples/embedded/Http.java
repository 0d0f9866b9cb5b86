package dev.caravan.examples.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/** A blocking HTTP/1.1 client for the example's tests, with streamed responses timestamped line by line. */
final class Http {

    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    private final String base;

    Http(int port) {
        this.base = "http://127.0.0.1:" + port;
    }

    /** One line of a streamed body and when it arrived ({@link System#nanoTime()}). */
    record Line(long nanos, String text) {
    }

    /** A streamed response: status, content type and its non-empty lines. */
    record Streamed(int status, String contentType, List<Line> lines) {
        List<String> data() {
            return lines.stream().map(Line::text).filter(t -> t.startsWith("data:")).map(t -> t.substring(5).trim())
                    .toList();
        }
    }

    HttpResponse<String> get(String path) {
        return send(HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30)).GET().build());
    }

    HttpResponse<String> get(String path, String header, String value) {
        return send(HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30)).header(header, value)
                .GET().build());
    }

    CompletableFuture<HttpResponse<String>> getAsync(String path) {
        return CLIENT.sendAsync(HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30)).GET()
                .build(), HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> postJson(String path, String body) {
        return send(json(path, body));
    }

    /** Milliseconds a JSON POST took, asserting it answered 200. */
    double timedPostJson(String path, String body) {
        long start = System.nanoTime();
        HttpResponse<String> r = postJson(path, body);
        double ms = (System.nanoTime() - start) / 1e6;
        if (r.statusCode() != 200) {
            throw new AssertionError(path + " answered " + r.statusCode() + ": " + r.body());
        }
        return ms;
    }

    /** POSTs JSON and reads the answer line by line, handing each line to {@code onLine} as it arrives. */
    Streamed stream(String path, String body, Consumer<Line> onLine) {
        try {
            HttpResponse<java.util.stream.Stream<String>> r = CLIENT.send(json(path, body),
                    HttpResponse.BodyHandlers.ofLines());
            List<Line> lines = new ArrayList<>();
            r.body().filter(l -> !l.isEmpty()).forEach(l -> {
                Line line = new Line(System.nanoTime(), l);
                lines.add(line);
                onLine.accept(line);
            });
            return new Streamed(r.statusCode(), r.headers().firstValue("Content-Type").orElse(""), lines);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private HttpRequest json(String path, String body) {
        return HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build();
    }

    private static HttpResponse<String> send(HttpRequest request) {
        try {
            return CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The median of {@code values}. */
    static double median(List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }
}
