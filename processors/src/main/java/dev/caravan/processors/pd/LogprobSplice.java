package dev.caravan.processors.pd;

import java.io.IOException;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.core.buffer.Buffer;

/**
 * SGLang's P/D logprob splice (docs/design/upstream.md, "SGLang: P/D logprob splice"): the prompt's logprobs exist only
 * on the prefill engine, which computed the prompt, so the router prepends prefill's
 * {@code meta_info.input_token_logprobs} to decode's. The only field touched; only when both sides carry it as an
 * array; a body or event that does not parse is left unchanged. Batch results are matched by sequence index (their
 * {@code index} field, or their position in a batch array). Pure and thread-safe.
 */
final class LogprobSplice {

    static final ObjectMapper MAPPER = new ObjectMapper();
    static final String FIELD = "input_token_logprobs";

    private LogprobSplice() {
    }

    /** The sequence index of one result: its {@code index} field, else {@code fallback}. */
    static int indexOf(JsonNode result, int fallback) {
        JsonNode index = result.get("index");
        return index != null && index.canConvertToInt() ? index.intValue() : fallback;
    }

    /** The result's {@code meta_info.input_token_logprobs} array, or null. */
    static ArrayNode inputLogprobs(JsonNode result) {
        JsonNode meta = result == null ? null : result.get("meta_info");
        JsonNode lp = meta == null ? null : meta.get(FIELD);
        return lp instanceof ArrayNode a ? a : null;
    }

    /**
     * Prepends {@code prefill} to the result's {@code meta_info.input_token_logprobs}.
     *
     * @return true when the result carried the field (and was changed)
     */
    static boolean spliceInto(JsonNode result, ArrayNode prefill) {
        ArrayNode decode = inputLogprobs(result);
        if (decode == null || prefill == null) {
            return false;
        }
        ArrayNode joined = MAPPER.createArrayNode();
        joined.addAll(prefill);
        joined.addAll(decode);
        ((ObjectNode) result.get("meta_info")).set(FIELD, joined);
        return true;
    }

    /**
     * Splices a whole (non-streamed) decode body: a result object, or a batch array of them.
     *
     * @return the rewritten body, or {@code body} itself when it does not parse or nothing was spliced
     */
    static Buffer spliceJson(Buffer body, PrefillLogprobs prefill) {
        JsonNode root;
        try {
            root = MAPPER.readTree(body.getBytes());
        } catch (IOException e) {
            return body;
        }
        boolean changed = false;
        if (root instanceof ArrayNode batch) {
            for (int i = 0; i < batch.size(); i++) {
                changed |= spliceInto(batch.get(i), prefill.forIndex(indexOf(batch.get(i), i)));
            }
        } else if (root instanceof ObjectNode one) {
            changed = spliceInto(one, prefill.forIndex(indexOf(one, 0)));
        }
        if (!changed) {
            return body;
        }
        try {
            return Buffer.buffer(MAPPER.writeValueAsBytes(root));
        } catch (IOException e) {
            return body;
        }
    }

    /** Splices one SSE event's JSON payload; null when it does not parse or carries no logprobs to splice. */
    static byte[] spliceEvent(String payload, PrefillLogprobs prefill) {
        if (!payload.contains(FIELD)) {
            return null;
        }
        try {
            JsonNode event = MAPPER.readTree(payload);
            if (event instanceof ObjectNode && spliceInto(event, prefill.forIndex(indexOf(event, 0)))) {
                return MAPPER.writeValueAsBytes(event);
            }
            return null;
        } catch (IOException e) {
            return null;
        }
    }
}
