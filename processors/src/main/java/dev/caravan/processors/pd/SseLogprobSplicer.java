package dev.caravan.processors.pd;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import io.vertx.core.buffer.Buffer;

/**
 * Splices prefill's prompt logprobs into every event of a streamed (SSE) decode response, with real SSE framing: the
 * byte stream is cut into lines at {@code \n} (a {@code \r\n} ending is accepted; {@code \n} never occurs inside a
 * multi-byte UTF-8 character, so cutting bytes is safe), lines are grouped into events ended by a blank line, and an
 * event is handled only once it is complete — whatever the network chunk boundaries (SGLang's baseline parsed each
 * network chunk on its own, smg #1768 / #1878).
 *
 * <p>Per event: the {@code data:} lines' payloads are joined (with {@code \n}, as the SSE spec does); a payload that is
 * exactly {@code [DONE]} passes unchanged; one that parses as a JSON result carrying
 * {@code meta_info.input_token_logprobs} is re-emitted as a single {@code data: <json>} line after the event's other
 * lines; anything else (no such field, not JSON, comments, other fields) passes through byte for byte. Each event is
 * written as soon as its blank line arrives, so the stream keeps its pace; only an incomplete event is held back, and
 * whatever is held when the stream ends is written as it came. Not thread-safe: one per response.
 */
final class SseLogprobSplicer implements BodyRewriter {

    private final PrefillLogprobs prefill;
    private final List<Buffer> eventLines = new ArrayList<>();
    private Buffer partial = Buffer.buffer();

    SseLogprobSplicer(PrefillLogprobs prefill) {
        this.prefill = prefill;
    }

    @Override
    public Buffer onChunk(Buffer chunk) {
        Buffer out = Buffer.buffer(chunk.length() + 64);
        int start = 0;
        int length = chunk.length();
        for (int i = 0; i < length; i++) {
            if (chunk.getByte(i) != '\n') {
                continue;
            }
            Buffer line;
            if (partial.length() > 0) {
                partial.appendBuffer(chunk, start, i + 1 - start);
                line = partial;
                partial = Buffer.buffer();
            } else {
                line = chunk.getBuffer(start, i + 1);
            }
            start = i + 1;
            eventLines.add(line);
            if (isBlank(line)) {
                emitEvent(out);
            }
        }
        if (start < length) {
            partial.appendBuffer(chunk, start, length - start);
        }
        return out;
    }

    @Override
    public Buffer onEnd() {
        Buffer out = Buffer.buffer();
        eventLines.forEach(out::appendBuffer);
        eventLines.clear();
        out.appendBuffer(partial);
        partial = Buffer.buffer();
        return out;
    }

    private void emitEvent(Buffer out) {
        StringBuilder data = null;
        for (Buffer line : eventLines) {
            String text = text(line);
            if (text.startsWith("data:")) {
                String payload = text.startsWith("data: ") ? text.substring(6) : text.substring(5);
                data = data == null ? new StringBuilder(payload) : data.append('\n').append(payload);
            }
        }
        byte[] spliced = data == null || data.toString().trim().equals("[DONE]") ? null
                : LogprobSplice.spliceEvent(data.toString(), prefill);
        if (spliced == null) {
            eventLines.forEach(out::appendBuffer);
        } else {
            Buffer terminator = eventLines.get(eventLines.size() - 1);
            for (int i = 0; i < eventLines.size() - 1; i++) {
                if (!text(eventLines.get(i)).startsWith("data:")) {
                    out.appendBuffer(eventLines.get(i));
                }
            }
            out.appendString("data: ").appendBytes(spliced).appendString("\n").appendBuffer(terminator);
        }
        eventLines.clear();
    }

    private static boolean isBlank(Buffer line) {
        return line.length() == 1 || (line.length() == 2 && line.getByte(0) == '\r');
    }

    /** The line without its terminator. */
    private static String text(Buffer line) {
        int end = line.length();
        if (end > 0 && line.getByte(end - 1) == '\n') {
            end--;
        }
        if (end > 0 && line.getByte(end - 1) == '\r') {
            end--;
        }
        return line.getString(0, end, StandardCharsets.UTF_8.name());
    }
}
