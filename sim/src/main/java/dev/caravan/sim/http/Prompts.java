package dev.caravan.sim.http;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.caravan.sim.text.ChatRenderer;
import dev.caravan.sim.text.EngineTokenizer;
import dev.caravan.sim.text.ModelText;

/**
 * Extracts prompt token ids from each API's request body, as the engines tokenize them: completions, embeddings and
 * SGLang's {@code /generate} text are encoded with the tokenizer's special tokens ({@code add_special_tokens},
 * default true, as vLLM's completions and Hugging Face's {@code encode}); chat {@code messages} (with {@code tools},
 * {@code add_generation_prompt} default true, {@code chat_template_kwargs}) are rendered with the engine's chat template
 * and encoded without them (vLLM's chat default {@code add_special_tokens: false}: the template holds them).
 * Token-id prompts are used as given.
 */
final class Prompts {

    private Prompts() {
    }

    /** OpenAI completions {@code prompt}: a string, an array of strings, an array of ids, or an array of arrays. */
    static List<int[]> completion(Map<String, Object> body, ModelText model) {
        return textOrIds(body.get("prompt"), "prompt", model.tokenizer(), Fields.bool(body, "add_special_tokens", true));
    }

    /** Embeddings {@code input}: the same forms as a completion prompt. */
    static List<int[]> embedding(Map<String, Object> body, ModelText model) {
        return textOrIds(body.get("input"), "input", model.tokenizer(), Fields.bool(body, "add_special_tokens", true));
    }

    /** Chat {@code messages} rendered with the engine's chat template, then encoded. */
    static int[] chat(Map<String, Object> body, ModelText model) {
        return model.tokenizer().encode(renderChat(body, model), Fields.bool(body, "add_special_tokens", false));
    }

    /** The prompt text of a chat request (also what {@code /tokenize} encodes for messages). */
    static String renderChat(Map<String, Object> body, ModelText model) {
        Object messages = body.get("messages");
        if (!(messages instanceof List<?> list) || list.isEmpty()) {
            throw new BadRequest("messages must be a non-empty array, was " + Json.string(messages));
        }
        Object tools = body.get("tools");
        if (tools != null && !(tools instanceof List<?>)) {
            throw new BadRequest("tools must be an array, was " + Json.string(tools));
        }
        Map<?, ?> kwargs = Fields.object(body, "chat_template_kwargs");
        Map<String, Object> vars = new LinkedHashMap<>();
        if (kwargs != null) {
            kwargs.forEach((k, v) -> vars.put(String.valueOf(k), v));
        }
        ChatRenderer template = model.chatTemplate();
        if (template == null) {
            throw new BadRequest(ModelText.NO_CHAT_TEMPLATE);
        }
        String text;
        try {
            text = template.render(list, (List<?>) tools, Fields.bool(body, "add_generation_prompt", true), vars);
        } catch (IllegalArgumentException e) {
            throw new BadRequest(e.getMessage());
        }
        if (text.isEmpty()) {
            throw new BadRequest("messages rendered to an empty prompt");
        }
        return text;
    }

    /** SGLang {@code /generate}: {@code text} (string or array) or {@code input_ids} (array or array of arrays). */
    static Generate generate(Map<String, Object> body, ModelText model) {
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
        return new Generate(textOrIds(v, what, model.tokenizer(), true), batch);
    }

    /** Prompts of a /generate request and whether it was a batch (the response is then an array). */
    record Generate(List<int[]> prompts, boolean batch) {
    }

    private static List<int[]> textOrIds(Object v, String what, EngineTokenizer tok, boolean special) {
        if (v instanceof String s) {
            return List.of(nonEmpty(tok.encode(s, special), what));
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
                out.add(nonEmpty(tok.encode(s, special), what + "[" + i + "]"));
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
