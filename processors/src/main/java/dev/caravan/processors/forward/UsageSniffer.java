package dev.caravan.processors.forward;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vertx.core.buffer.Buffer;

/**
 * Reads the engine's token counts from a response <em>as it passes</em> to the client, without holding the stream back.
 *
 * <ul>
 *   <li>SSE ({@code text/event-stream}): splits the chunks into lines (keeping a partial line across chunks) and parses
 *       only {@code data:} lines that mention {@code "prompt_tokens"} — OpenAI's final usage chunk
 *       ({@code stream_options.include_usage}) or SGLang's per-chunk {@code meta_info}. The last report wins (SGLang's
 *       counts are cumulative).</li>
 *   <li>JSON: keeps a copy of the body (up to {@link #MAX_JSON_BYTES}; larger bodies are not inspected) and parses it at
 *       the end; a top-level array (batch {@code /generate}) sums its elements.</li>
 *   <li>Anything else: ignored.</li>
 * </ul>
 * Not thread-safe: one instance per response, fed from the response's event loop.
 */
final class UsageSniffer {

    /** Bodies larger than this are passed through without reading their usage. */
    static final int MAX_JSON_BYTES = 4 * 1024 * 1024;

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final byte[] MARKER = "\"prompt_tokens\"".getBytes(StandardCharsets.US_ASCII);

    private enum Mode { SSE, JSON, NONE }

    private final Mode mode;
    private Buffer pending;
    private boolean overflow;
    private Usage usage = Usage.NONE;

    private UsageSniffer(Mode mode) {
        this.mode = mode;
    }

    static UsageSniffer forContentType(String contentType) {
        String ct = contentType == null ? "" : contentType.toLowerCase(java.util.Locale.ROOT);
        if (ct.startsWith("text/event-stream")) {
            return new UsageSniffer(Mode.SSE);
        }
        if (ct.startsWith("application/json")) {
            return new UsageSniffer(Mode.JSON);
        }
        return new UsageSniffer(Mode.NONE);
    }

    void accept(Buffer chunk) {
        switch (mode) {
            case SSE -> acceptSse(chunk);
            case JSON -> {
                if (overflow) {
                    return;
                }
                if (pending == null) {
                    pending = Buffer.buffer(Math.max(256, chunk.length()));
                }
                if (pending.length() + chunk.length() > MAX_JSON_BYTES) {
                    overflow = true;
                    pending = null;
                    return;
                }
                pending.appendBuffer(chunk);
            }
            default -> {
            }
        }
    }

    /** The counts read so far; call after the last chunk. */
    Usage finish() {
        if (mode == Mode.JSON && pending != null && !overflow) {
            if (contains(pending, 0, pending.length(), MARKER)) {
                usage = fromJson(pending.getBytes());
            }
            pending = null;
        }
        return usage;
    }

    private void acceptSse(Buffer chunk) {
        Buffer data = chunk;
        if (pending != null && pending.length() > 0) {
            data = pending.appendBuffer(chunk);
        }
        int lineStart = 0;
        int len = data.length();
        for (int i = 0; i < len; i++) {
            if (data.getByte(i) == '\n') {
                inspectLine(data, lineStart, i);
                lineStart = i + 1;
            }
        }
        if (lineStart >= len) {
            pending = null;
        } else if (len - lineStart > MAX_JSON_BYTES) {
            pending = null; // a runaway line; drop it rather than grow without bound
        } else {
            pending = data.getBuffer(lineStart, len);
        }
    }

    private void inspectLine(Buffer data, int start, int end) {
        if (end - start < 6 || data.getByte(start) != 'd' || !contains(data, start, end, MARKER)) {
            return;
        }
        byte[] bytes = data.getBytes(start, end);
        String line = new String(bytes, StandardCharsets.UTF_8).trim();
        if (!line.startsWith("data:")) {
            return;
        }
        String json = line.substring(5).trim();
        if (json.isEmpty()) {
            return;
        }
        Usage u = fromJson(json.getBytes(StandardCharsets.UTF_8));
        if (u.hasPromptTokens()) {
            usage = u;
        }
    }

    private static boolean contains(Buffer data, int start, int end, byte[] needle) {
        outer:
        for (int i = start; i <= end - needle.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (data.getByte(i + j) != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    private static Usage fromJson(byte[] bytes) {
        try {
            JsonNode root = MAPPER.readTree(bytes);
            if (root == null) {
                return Usage.NONE;
            }
            if (root.isArray()) {
                Usage sum = Usage.NONE;
                for (JsonNode element : root) {
                    sum = sum.plus(fromNode(element));
                }
                return sum;
            }
            return fromNode(root);
        } catch (IOException e) {
            return Usage.NONE; // not JSON after all: nothing to count
        }
    }

    private static Usage fromNode(JsonNode node) {
        JsonNode usage = node.get("usage");
        if (usage != null && usage.isObject()) {
            JsonNode details = usage.get("prompt_tokens_details");
            return new Usage(longOf(usage.get("prompt_tokens")),
                    details == null ? -1 : longOf(details.get("cached_tokens")),
                    longOf(usage.get("completion_tokens")));
        }
        JsonNode meta = node.get("meta_info");
        if (meta != null && meta.isObject()) {
            return new Usage(longOf(meta.get("prompt_tokens")), longOf(meta.get("cached_tokens")),
                    longOf(meta.get("completion_tokens")));
        }
        return Usage.NONE;
    }

    private static long longOf(JsonNode n) {
        return n != null && n.canConvertToLong() ? n.asLong() : -1;
    }
}
