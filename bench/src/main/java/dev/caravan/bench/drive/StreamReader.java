package dev.caravan.bench.drive;

import java.nio.charset.StandardCharsets;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.vertx.core.buffer.Buffer;

/**
 * Reads one streamed OpenAI response (server-sent events) into its {@link RequestRecord}: the arrival of the first
 * event is the time to first token (engines write the response head with the first token), the first event's
 * {@code id} names the serving engine (the simulator's ids are {@code cmpl-<engine>-<n>}, also through nginx), and the
 * final usage chunk carries the engine's own {@code prompt_tokens} and {@code prompt_tokens_details.cached_tokens}.
 * Token chunks are parsed only when the workload needs the answer's text. Used from one event-loop thread.
 */
final class StreamReader {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final RequestRecord record;
    private final StringBuilder output;
    private boolean first = true;

    StreamReader(RequestRecord record, boolean keepOutput) {
        this.record = record;
        this.output = keepOutput ? new StringBuilder() : null;
    }

    /** Handles one event (the bytes between two blank lines). */
    void onEvent(Buffer event, long nowNanos) {
        String s = event.toString(StandardCharsets.UTF_8).trim();
        if (!s.startsWith("data:")) {
            return;
        }
        String payload = s.substring(5).trim();
        if (payload.equals("[DONE]")) {
            return;
        }
        if (first) {
            first = false;
            record.firstTokenNanos = nowNanos;
            record.engine = engineOf(payload);
        }
        if (payload.startsWith("{\"error\"")) {
            record.error = payload;
            return;
        }
        boolean usage = payload.contains("\"usage\"");
        if (!usage && output == null) {
            return;
        }
        try {
            JsonNode j = JSON.readTree(payload);
            JsonNode u = j.path("usage");
            if (u.isObject()) {
                record.promptTokens = u.path("prompt_tokens").asInt();
                record.completionTokens = u.path("completion_tokens").asInt();
                record.cachedTokens = u.path("prompt_tokens_details").path("cached_tokens").asInt();
            }
            JsonNode choice = j.path("choices").path(0);
            if (output != null && choice.isObject()) {
                JsonNode text = choice.has("delta") ? choice.path("delta").path("content") : choice.path("text");
                if (text.isTextual()) {
                    output.append(text.asText());
                }
            }
        } catch (java.io.IOException e) {
            record.error = "unparsable event: " + payload;
        }
    }

    /** The concatenated answer text (empty unless kept). */
    String output() {
        return output == null ? "" : output.toString();
    }

    /** The engine part of a simulator id ({@code chatcmpl-3-17} → {@code 3}), or null. */
    static String engineOf(String payload) {
        int i = payload.indexOf("\"id\":\"");
        if (i < 0) {
            return null;
        }
        int start = i + 6;
        int end = payload.indexOf('"', start);
        if (end < 0) {
            return null;
        }
        String id = payload.substring(start, end);
        int a = id.indexOf('-');
        int b = id.lastIndexOf('-');
        return a >= 0 && b > a ? id.substring(a + 1, b) : null;
    }
}
