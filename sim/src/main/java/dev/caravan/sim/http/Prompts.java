package dev.caravan.sim.http;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.caravan.policies.text.ChatTemplate;
import dev.caravan.policies.text.PseudoTokenizer;

/**
 * Extracts prompt token ids from each API's request body. Text goes through the shared {@link PseudoTokenizer};
 * chat messages (and {@code tools}) are first rendered with the shared {@link ChatTemplate}, exactly as the gateway
 * does, so both compute the same block hashes. Token-id prompts are used as given.
 */
final class Prompts {

    private Prompts() {
    }

    /** OpenAI completions {@code prompt}: a string, an array of strings, an array of ids, or an array of arrays. */
    static List<int[]> completion(Map<String, Object> body, PseudoTokenizer tok) {
        return textOrIds(body.get("prompt"), "prompt", tok);
    }

    /** Embeddings {@code input}: the same forms as a completion prompt. */
    static List<int[]> embedding(Map<String, Object> body, PseudoTokenizer tok) {
        return textOrIds(body.get("input"), "input", tok);
    }

    /** Chat {@code messages} and optional {@code tools}, rendered with the chat template. */
    static int[] chat(Map<String, Object> body, PseudoTokenizer tok) {
        Object messages = body.get("messages");
        if (!(messages instanceof List<?> list) || list.isEmpty()) {
            throw new BadRequest("messages must be a non-empty array, was " + Json.string(messages));
        }
        Object tools = body.get("tools");
        if (tools != null && !(tools instanceof List<?>)) {
            throw new BadRequest("tools must be an array, was " + Json.string(tools));
        }
        try {
            return nonEmpty(tok.encode(ChatTemplate.render(list, (List<?>) tools)), "messages");
        } catch (IllegalArgumentException e) {
            throw new BadRequest(e.getMessage());
        }
    }

    /** SGLang {@code /generate}: {@code text} (string or array) or {@code input_ids} (array or array of arrays). */
    static Generate generate(Map<String, Object> body, PseudoTokenizer tok) {
        Object text = body.get("text");
        Object ids = body.get("input_ids");
        if (text != null && ids != null) {
            throw new BadRequest("give either text or input_ids, not both");
        }
        if (text == null && ids == null) {
            throw new BadRequest("/generate needs text or input_ids");
        }
        Object v = text != null ? text : ids;
        String what = text != null ? "text" : "input_ids";
        if (text != null && !(text instanceof String) && !(text instanceof List<?>)) {
            throw new BadRequest("text must be a string or an array of strings, was " + Json.string(text));
        }
        if (ids != null && !(ids instanceof List<?>)) {
            throw new BadRequest("input_ids must be an array of token ids or of arrays, was " + Json.string(ids));
        }
        boolean batch = v instanceof List<?> l && (text != null || !Fields.allNumbers(l));
        return new Generate(textOrIds(v, what, tok), batch);
    }

    /** Prompts of a /generate request and whether it was a batch (the response is then an array). */
    record Generate(List<int[]> prompts, boolean batch) {
    }

    private static List<int[]> textOrIds(Object v, String what, PseudoTokenizer tok) {
        if (v instanceof String s) {
            return List.of(nonEmpty(tok.encode(s), what));
        }
        if (!(v instanceof List<?> list) || list.isEmpty()) {
            throw new BadRequest(what + " must be a non-empty string or array, was " + Json.string(v));
        }
        if (Fields.allNumbers(list)) {
            return List.of(Fields.tokenIds(list, what));
        }
        List<int[]> out = new ArrayList<>(list.size());
        for (int i = 0; i < list.size(); i++) {
            Object item = list.get(i);
            if (item instanceof String s) {
                out.add(nonEmpty(tok.encode(s), what + "[" + i + "]"));
            } else if (item instanceof List<?> ids && !ids.isEmpty()) {
                out.add(Fields.tokenIds(ids, what + "[" + i + "]"));
            } else {
                throw new BadRequest(what + "[" + i + "] must be a non-empty string or array of token ids, was "
                        + Json.string(item));
            }
        }
        return out;
    }

    private static int[] nonEmpty(int[] tokens, String what) {
        if (tokens.length == 0) {
            throw new BadRequest(what + " must not be empty");
        }
        return tokens;
    }
}
