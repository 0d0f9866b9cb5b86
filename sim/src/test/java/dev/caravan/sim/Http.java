package dev.caravan.sim;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;

/** Minimal blocking JSON client for tests (JDK HttpClient). */
public final class Http {

    public static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private Http() {
    }

    public static HttpResponse<String> post(String url, String body) {
        return send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30))
                .header("content-type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build());
    }

    public static HttpResponse<String> post(String url, Object body) {
        try {
            return post(url, JSON.writeValueAsString(body));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    public static HttpResponse<String> get(String url) {
        return send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30)).GET().build());
    }

    public static HttpResponse<String> send(HttpRequest req) {
        try {
            return CLIENT.send(req, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @SuppressWarnings("unchecked")
    public static Map<String, Object> map(String json) {
        try {
            return JSON.readValue(json, Map.class);
        } catch (IOException e) {
            throw new IllegalStateException("not a JSON object: " + json, e);
        }
    }

    @SuppressWarnings("unchecked")
    public static List<Object> list(String json) {
        try {
            return JSON.readValue(json, List.class);
        } catch (IOException e) {
            throw new IllegalStateException("not a JSON array: " + json, e);
        }
    }

    /** The payloads of an SSE body, in order ({@code [DONE]} included as a string). */
    public static List<String> sseData(String body) {
        List<String> out = new ArrayList<>();
        for (String event : body.split("\n\n")) {
            if (event.isEmpty()) {
                continue;
            }
            if (!event.startsWith("data: ")) {
                throw new IllegalStateException("not an SSE data event: " + event);
            }
            out.add(event.substring("data: ".length()));
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    public static <T> T at(Object json, Object... path) {
        Object cur = json;
        for (Object p : path) {
            cur = p instanceof Integer i ? ((List<Object>) cur).get(i) : ((Map<String, Object>) cur).get(p);
        }
        return (T) cur;
    }
}
