package dev.caravan.processors.forward;

import java.nio.charset.StandardCharsets;

import io.netty.buffer.ByteBuf;
import io.vertx.core.buffer.Buffer;

/**
 * Reads the engine's token counts from a response <em>as it passes</em> to the client, without holding the stream back.
 *
 * <ul>
 *   <li>SSE ({@code text/event-stream}): splits the chunks into lines (keeping a partial line across chunks) and parses
 *       only {@code data:} lines that mention {@code "prompt_tokens"} — OpenAI's final usage chunk
 *       ({@code stream_options.include_usage}) or SGLang's per-chunk {@code meta_info}. The last report wins (SGLang's
 *       counts are cumulative).</li>
 *   <li>JSON: a body that comes in one chunk (a non-streamed answer usually does) is read whole when it ends
 *       ({@link JsonUsageReader#read}, Jackson's blocking parser over the chunk's own bytes); once a second chunk
 *       comes, each is parsed as it arrives ({@link JsonUsageReader}: a non-blocking parser). Either way only the counts
 *       are kept, so the body is neither copied nor built into a tree; a top-level array (batch {@code /generate})
 *       sums its elements. Bodies larger than {@link #MAX_JSON_BYTES} are not counted.</li>
 *   <li>Anything else: ignored.</li>
 * </ul>
 * While an SSE stream passes, {@link #outputSoFar} estimates its output tokens: one per {@code data:} event (engines
 * stream one event per token by default: vLLM's and SGLang's stream interval of 1), not counting {@code [DONE]} or a
 * usage-only event ({@code "choices":[]}), or the {@code completion_tokens} reported so far when that is more (SGLang's
 * cumulative {@code meta_info}). The role-only first event and the finish event make the estimate about two over; the
 * final {@code usage} settles it.
 * Not thread-safe: one instance per response, fed from the response's event loop.
 */
public final class UsageSniffer {

    /** Bodies (and SSE lines) larger than this are passed through without reading their usage. */
    static final int MAX_JSON_BYTES = 4 * 1024 * 1024;

    private static final byte[] MARKER = "\"prompt_tokens\"".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] DATA = "data:".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] DONE = "[DONE]".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NO_CHOICES = "\"choices\":[]".getBytes(StandardCharsets.US_ASCII);

    private enum Mode { SSE, JSON, NONE }

    private final Mode mode;
    /** JSON: the body's only chunk so far, read whole at the end unless another follows. */
    private Buffer first;
    /** JSON: the piecewise reader, from the second chunk on. */
    private JsonUsageReader json;
    private boolean finished;
    /** SSE: the bytes of an incomplete line carried over from the previous chunk. */
    private byte[] pending;
    private long bytes;
    private long events;
    private Usage usage = Usage.NONE;

    private UsageSniffer(Mode mode) {
        this.mode = mode;
    }

    public static UsageSniffer forContentType(String contentType) {
        if (startsWithIgnoringAsciiCase(contentType, "text/event-stream")) {
            return new UsageSniffer(Mode.SSE);
        }
        if (startsWithIgnoringAsciiCase(contentType, "application/json")) {
            return new UsageSniffer(Mode.JSON);
        }
        return new UsageSniffer(Mode.NONE);
    }

    /**
     * Whether {@code s} starts with {@code lower} (lower-case ASCII) in any case: what lower-casing {@code s} and then
     * {@code startsWith} answered, without the lower-cased copy per response.
     */
    static boolean startsWithIgnoringAsciiCase(String s, String lower) {
        if (s == null || s.length() < lower.length()) {
            return false;
        }
        for (int i = 0; i < lower.length(); i++) {
            char c = s.charAt(i);
            char want = lower.charAt(i);
            if (c != want && !(c >= 'A' && c <= 'Z' && (char) (c + ('a' - 'A')) == want)) {
                return false;
            }
        }
        return true;
    }

    public void accept(Buffer chunk) {
        if (mode == Mode.NONE) {
            return;
        }
        if (mode == Mode.JSON) {
            acceptJson(chunk);
        } else {
            bytesOf(chunk, (array, offset, length) -> {
                acceptSse(array, offset, length);
                return null;
            });
        }
    }

    /** What {@code use} makes of a piece of bytes. */
    private interface BytesUse<T> {
        T apply(byte[] array, int offset, int length);
    }

    /** Gives {@code use} the chunk's own bytes where it has an array (Vert.x's heap buffers), else a copy of them. */
    private static <T> T bytesOf(Buffer chunk, BytesUse<T> use) {
        ByteBuf buf = chunk.getByteBuf();
        if (buf.hasArray()) {
            return use.apply(buf.array(), buf.arrayOffset() + buf.readerIndex(), buf.readableBytes());
        }
        byte[] copy = chunk.getBytes();
        return use.apply(copy, 0, copy.length);
    }

    /**
     * Holds a body's first chunk (the relay's buffers are not changed once relayed), and feeds the piecewise reader
     * from the second on.
     */
    private void acceptJson(Buffer chunk) {
        int length = chunk.length();
        if (length == 0) {
            return;
        }
        bytes += length;
        if (bytes > MAX_JSON_BYTES) {
            first = null;
            json = null;
            return;
        }
        if (json == null && first == null) {
            first = chunk;
            return;
        }
        if (json == null) {
            json = new JsonUsageReader();
            feed(json, first);
            first = null;
        }
        feed(json, chunk);
    }

    private static void feed(JsonUsageReader reader, Buffer chunk) {
        bytesOf(chunk, (array, offset, length) -> {
            reader.feed(array, offset, length);
            return null;
        });
    }

    /**
     * Output tokens so far: for SSE the larger of the events counted and the {@code completion_tokens} reported so far;
     * for other bodies what was reported (nothing before the end of a JSON body).
     */
    public long outputSoFar() {
        return Math.max(events, Math.max(0, usage.completionTokens()));
    }

    /** The counts read so far; call after the last chunk. */
    public Usage finish() {
        if (mode == Mode.JSON && !finished) {
            finished = true;
            if (bytes > MAX_JSON_BYTES || (first == null && json == null)) {
                usage = Usage.NONE; // too long to count, or no body
            } else if (json == null) {
                usage = bytesOf(first, JsonUsageReader::read);
            } else {
                usage = json.finish();
            }
            first = null;
            json = null;
        }
        return usage;
    }

    private void acceptSse(byte[] chunk, int offset, int length) {
        byte[] data = chunk;
        int lineStart = offset;
        int len = offset + length;
        if (pending != null) {
            data = new byte[pending.length + length];
            System.arraycopy(pending, 0, data, 0, pending.length);
            System.arraycopy(chunk, offset, data, pending.length, length);
            pending = null;
            lineStart = 0;
            len = data.length;
        }
        for (int i = lineStart; i < len; i++) {
            if (data[i] == '\n') {
                inspectLine(data, lineStart, i);
                lineStart = i + 1;
            }
        }
        if (lineStart < len && len - lineStart <= MAX_JSON_BYTES) { // a longer line is a runaway; dropped
            pending = java.util.Arrays.copyOfRange(data, lineStart, len);
        }
    }

    private void inspectLine(byte[] data, int start, int end) {
        if (end - start < 6 || data[start] != 'd') {
            return;
        }
        // the line, trimmed, must start with "data:"; its payload is the rest, trimmed
        int from = start;
        int to = end;
        while (to > from && data[to - 1] <= ' ') {
            to--;
        }
        if (to - from < DATA.length || !regionEquals(data, from, DATA)) {
            return;
        }
        from += DATA.length;
        while (from < to && data[from] <= ' ') {
            from++;
        }
        if (from == to || to - from == DONE.length && regionEquals(data, from, DONE)) {
            return;
        }
        if (!contains(data, from, to, NO_CHOICES)) {
            events++;
        }
        if (!contains(data, from, to, MARKER)) {
            return;
        }
        Usage u = JsonUsageReader.read(data, from, to - from);
        if (u.hasPromptTokens()) {
            usage = u;
        }
    }

    private static boolean regionEquals(byte[] data, int at, byte[] what) {
        for (int j = 0; j < what.length; j++) {
            if (data[at + j] != what[j]) {
                return false;
            }
        }
        return true;
    }

    private static boolean contains(byte[] data, int start, int end, byte[] needle) {
        for (int i = start; i <= end - needle.length; i++) {
            if (data[i] == needle[0] && regionEquals(data, i, needle)) {
                return true;
            }
        }
        return false;
    }
}
