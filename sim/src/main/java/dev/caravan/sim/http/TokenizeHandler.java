package dev.caravan.sim.http;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.vertx.core.http.HttpServerRequest;

/**
 * vLLM's {@code POST /tokenize} and {@code POST /detokenize}: the engine's own token ids for a prompt (encoded as a
 * completion, {@code add_special_tokens} default true) or for chat {@code messages} (rendered with the engine's chat
 * template, then encoded, {@code add_special_tokens} default false), answered as
 * {@code {"count", "max_model_len", "tokens", "token_strs": null}}; and the text of token ids as {@code {"prompt"}}.
 */
final class TokenizeHandler {

    private final EngineContext ctx;

    TokenizeHandler(EngineContext ctx) {
        this.ctx = ctx;
    }

    void tokenize(HttpServerRequest req, Map<String, Object> body) {
        Limits.model(ctx, body);
        int[] ids;
        if (body.containsKey("messages")) {
            ids = Prompts.chat(body, ctx.text);
        } else if (body.get("prompt") instanceof String prompt) {
            ids = ctx.text.tokenizer().encode(prompt, Fields.bool(body, "add_special_tokens", true));
        } else {
            throw new BadRequest("/tokenize needs a string prompt or messages, was " + Json.string(body.get("prompt")));
        }
        List<Integer> tokens = new ArrayList<>(ids.length);
        for (int id : ids) {
            tokens.add(id);
        }
        Json.send(req.response(), 200, Json.obj("count", ids.length, "max_model_len", ctx.config.maxModelLen(),
                "tokens", tokens, "token_strs", null));
    }

    void detokenize(HttpServerRequest req, Map<String, Object> body) {
        Limits.model(ctx, body);
        Object tokens = body.get("tokens");
        if (!(tokens instanceof List<?> list)) {
            throw new BadRequest("tokens must be an array of token ids, was " + Json.string(tokens));
        }
        StringBuilder sb = new StringBuilder();
        for (int id : Fields.tokenIds(list, "tokens")) {
            sb.append(ctx.text.tokenizer().decode(id));
        }
        Json.send(req.response(), 200, Json.obj("prompt", sb.toString()));
    }
}
