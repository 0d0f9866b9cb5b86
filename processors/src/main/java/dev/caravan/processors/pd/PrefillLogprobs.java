package dev.caravan.processors.pd;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.vertx.core.buffer.Buffer;

/**
 * The prompt logprobs a prefill engine returned ({@code meta_info.input_token_logprobs}), per sequence index, read from
 * its whole response: a JSON result, a batch array of results, or an SSE stream (the last event that carries them wins
 * per index: SGLang repeats them in every chunk). Immutable.
 */
final class PrefillLogprobs {

    static final PrefillLogprobs NONE = new PrefillLogprobs(Map.of());

    private final Map<Integer, ArrayNode> byIndex;

    private PrefillLogprobs(Map<Integer, ArrayNode> byIndex) {
        this.byIndex = byIndex;
    }

    /** Reads a prefill response body; {@link #NONE} when it carries no logprobs or does not parse. */
    static PrefillLogprobs read(Buffer body) {
        if (body == null || body.length() == 0) {
            return NONE;
        }
        String text = body.toString(StandardCharsets.UTF_8);
        Map<Integer, ArrayNode> out = new HashMap<>();
        String trimmed = text.stripLeading();
        if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
            JsonNode root = parse(trimmed);
            if (root instanceof ArrayNode batch) {
                for (int i = 0; i < batch.size(); i++) {
                    put(out, batch.get(i), i);
                }
            } else if (root != null) {
                put(out, root, 0);
            }
        } else {
            for (String line : text.split("\r?\n")) {
                if (line.startsWith("data:") && line.contains(LogprobSplice.FIELD)) {
                    put(out, parse(line.substring(5).trim()), 0);
                }
            }
        }
        return out.isEmpty() ? NONE : new PrefillLogprobs(Map.copyOf(out));
    }

    private static void put(Map<Integer, ArrayNode> out, JsonNode result, int fallbackIndex) {
        ArrayNode lp = LogprobSplice.inputLogprobs(result);
        if (lp != null) {
            out.put(LogprobSplice.indexOf(result, fallbackIndex), lp);
        }
    }

    private static JsonNode parse(String json) {
        try {
            return LogprobSplice.MAPPER.readTree(json);
        } catch (IOException e) {
            return null;
        }
    }

    /** The logprobs of sequence {@code index}, or null. */
    ArrayNode forIndex(int index) {
        return byIndex.get(index);
    }

    boolean isEmpty() {
        return byIndex.isEmpty();
    }
}
