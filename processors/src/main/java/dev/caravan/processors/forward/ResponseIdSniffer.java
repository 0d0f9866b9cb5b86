package dev.caravan.processors.forward;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.function.Consumer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vertx.core.buffer.Buffer;

/**
 * Finds the id of a Responses API response in its body as the chunks pass, without holding them back, and hands it to
 * a consumer once:
 * <ul>
 *   <li>SSE: the first {@code data:} line whose event carries a response object ({@code response.created}:
 *       {@code {"type":"response.created","response":{"id":"resp_..."}}});</li>
 *   <li>JSON: the top-level {@code id}, read as soon as the bytes received hold the whole value (engines write
 *       {@code id} first), else from the whole body at the end (up to {@link #MAX_BYTES}).</li>
 * </ul>
 * Not thread-safe: one per response, fed from its event loop.
 */
public final class ResponseIdSniffer {

    /** Bodies (or SSE lines) longer than this are not inspected further. */
    static final int MAX_BYTES = 1 << 20;

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final boolean sse;
    private final Consumer<String> onId;
    private Buffer pending = Buffer.buffer();
    private boolean done;

    private ResponseIdSniffer(boolean sse, Consumer<String> onId) {
        this.sse = sse;
        this.onId = onId;
    }

    /** A sniffer for a response of this content type, or null when it carries no response object (not JSON). */
    public static ResponseIdSniffer forContentType(String contentType, Consumer<String> onId) {
        String ct = contentType == null ? "" : contentType.toLowerCase(Locale.ROOT);
        if (ct.startsWith("text/event-stream")) {
            return new ResponseIdSniffer(true, onId);
        }
        if (ct.startsWith("application/json")) {
            return new ResponseIdSniffer(false, onId);
        }
        return null;
    }

    public void accept(Buffer chunk) {
        if (done) {
            return;
        }
        if (pending.length() + chunk.length() > MAX_BYTES) {
            done = true;
            pending = null;
            return;
        }
        pending.appendBuffer(chunk);
        if (sse) {
            scanLines();
        } else {
            String id = leadingId(pending.toString(StandardCharsets.UTF_8));
            if (id != null) {
                found(id);
            }
        }
    }

    /** The body ended: a JSON body whose id came late is parsed whole. */
    public void finish() {
        if (done || sse) {
            return;
        }
        try {
            JsonNode root = MAPPER.readTree(pending.getBytes());
            if (root != null && root.path("id").isTextual()) {
                found(root.get("id").asText());
            }
        } catch (IOException e) {
            // not JSON after all: no id
        }
        done = true;
    }

    private void scanLines() {
        int start = 0;
        for (int i = 0; !done && i < pending.length(); i++) {
            if (pending.getByte(i) == '\n') {
                inspect(pending.getString(start, i, "UTF-8").trim());
                start = i + 1;
            }
        }
        if (!done) {
            pending = pending.getBuffer(start, pending.length());
        }
    }

    private void inspect(String line) {
        if (!line.startsWith("data:") || !line.contains("\"response\"")) {
            return;
        }
        try {
            JsonNode node = MAPPER.readTree(line.substring(5).trim());
            JsonNode id = node == null ? null : node.path("response").path("id");
            if (id != null && id.isTextual()) {
                found(id.asText());
            }
        } catch (IOException e) {
            // a malformed line: keep looking
        }
    }

    /** {@code {"id":"..."} } at the start of a JSON object, once the value is complete; null otherwise. */
    static String leadingId(String text) {
        int i = skip(text, 0);
        if (i >= text.length() || text.charAt(i) != '{') {
            return null;
        }
        i = skip(text, i + 1);
        if (!text.startsWith("\"id\"", i)) {
            return null;
        }
        i = skip(text, i + 4);
        if (i >= text.length() || text.charAt(i) != ':') {
            return null;
        }
        i = skip(text, i + 1);
        if (i >= text.length() || text.charAt(i) != '"') {
            return null;
        }
        int end = text.indexOf('"', i + 1);
        if (end < 0 || text.lastIndexOf('\\', end) > i) {
            return null; // incomplete, or escapes (not an engine's id): the end-of-body parse decides
        }
        return text.substring(i + 1, end);
    }

    private static int skip(String s, int i) {
        while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
            i++;
        }
        return i;
    }

    private void found(String id) {
        done = true;
        pending = null;
        if (!id.isEmpty()) {
            onId.accept(id);
        }
    }
}
