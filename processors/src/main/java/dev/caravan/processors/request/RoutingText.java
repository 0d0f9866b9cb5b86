package dev.caravan.processors.request;

import java.util.List;
import java.util.Map;

import dev.caravan.policies.text.ChatTemplate;
import dev.caravan.processors.error.GatewayError;
import dev.caravan.processors.error.GatewayException;

/**
 * The text a request is routed by, without tokenizing (the exact format is documented in docs/policies.md, "Routing text"):
 * <ul>
 *   <li>chat: {@link ChatTemplate#render} of {@code messages} and {@code tools} — the whole conversation in prompt order,
 *       tool definitions and tool calls included; the same string the engine simulator tokenizes and caches, and a
 *       prefix of the next turn's text, so a growing conversation keeps its affinity;</li>
 *   <li>completions: {@code prompt} as is; an array of strings joined with single spaces; token ids (an array of
 *       integers, or of integer arrays) as decimal ids joined with single spaces;</li>
 *   <li>generate: {@code text} (a string, or strings joined with spaces); else {@code input_ids} as decimal ids joined
 *       with spaces (a batch flattened); else, when {@code input_embeds} is given, the empty string (nothing to route
 *       by);</li>
 *   <li>embeddings and classify: {@code input}, with the same rules as {@code prompt};</li>
 *   <li>rerank: {@code query} (SGLang's key; {@code documents} must be an array of strings);</li>
 *   <li>tokenize: {@code prompt} with the rules of completions, else {@code messages} as chat (vLLM's chat form);</li>
 *   <li>detokenize: {@code tokens} as decimal ids joined with spaces;</li>
 *   <li>responses: {@code instructions}, then {@code input} — a string, or the text of its items (message contents,
 *       reasoning text, function-call arguments and outputs) — joined with single spaces (SGLang's rule, plus the
 *       instructions the engine puts first in the prompt).</li>
 * </ul>
 * A field of the wrong type is a {@link GatewayError#INVALID_REQUEST} naming the field (400, never a 500); so is a request
 * with no input at all (no {@code prompt}/{@code input}; a {@code /generate} without {@code text}, {@code input_ids} and
 * {@code input_embeds}) and an empty array, at the top level or inside a batch ({@code prompt:[]},
 * {@code input_ids:[[1],[]]}): the engines reject all of these, so the gateway answers them itself and they never cost
 * an upstream round trip or a worker slot.
 */
public final class RoutingText {

    private RoutingText() {
    }

    public static String extract(RequestKind kind, Map<String, Object> body) {
        return switch (kind) {
            case CHAT -> chat(body);
            case COMPLETIONS -> promptLike(body, "prompt", true);
            case EMBEDDINGS, CLASSIFY -> promptLike(body, "input", true);
            case GENERATE -> generate(body);
            case RERANK -> rerank(body);
            case TOKENIZE -> body.get("prompt") == null && body.get("messages") != null ? chat(body)
                    : promptLike(body, "prompt", true);
            case DETOKENIZE -> textOrIds(require(body, "tokens"), "tokens", true);
            case RESPONSES -> ResponsesText.of(body);
        };
    }

    private static Object require(Map<String, Object> body, String field) {
        Object v = body.get(field);
        if (v == null) {
            throw invalid(field + " is required");
        }
        return v;
    }

    private static String rerank(Map<String, Object> body) {
        if (!(body.get("query") instanceof String query)) {
            throw invalid("query is required and must be a string");
        }
        Object documents = body.get("documents");
        if (!(documents instanceof List<?> docs) || docs.isEmpty()) {
            throw invalid("documents must be a non-empty array");
        }
        return query;
    }

    private static String chat(Map<String, Object> body) {
        Object messages = body.get("messages");
        if (!(messages instanceof List<?> list) || list.isEmpty()) {
            throw invalid("messages must be a non-empty array");
        }
        Object tools = body.get("tools");
        if (tools != null && !(tools instanceof List<?>)) {
            throw invalid("tools must be an array");
        }
        try {
            return ChatTemplate.render(list, (List<?>) tools);
        } catch (IllegalArgumentException e) {
            throw invalid(e.getMessage());
        }
    }

    private static String generate(Map<String, Object> body) {
        Object text = body.get("text");
        if (text != null) {
            return textOrIds(text, "text", false);
        }
        Object ids = body.get("input_ids");
        if (ids != null) {
            if (!(ids instanceof List<?>)) {
                throw invalid("input_ids must be an array of integers or of integer arrays");
            }
            if (!((List<?>) ids).isEmpty() && ((List<?>) ids).get(0) instanceof String) {
                throw invalid("input_ids[0] must be an integer token id or an array of them");
            }
            return textOrIds(ids, "input_ids", true);
        }
        if (body.get("input_embeds") != null) {
            return "";
        }
        throw invalid("text, input_ids or input_embeds is required");
    }

    private static String promptLike(Map<String, Object> body, String field, boolean required) {
        Object value = body.get(field);
        if (value == null) {
            if (required) {
                throw invalid(field + " is required");
            }
            return "";
        }
        return textOrIds(value, field, true);
    }

    /** A string; an array of strings; or (when {@code idsAllowed}) token ids, flat or one level nested. */
    private static String textOrIds(Object value, String field, boolean idsAllowed) {
        if (value instanceof String s) {
            return s;
        }
        if (!(value instanceof List<?> list)) {
            throw invalid(field + " must be a string or an array");
        }
        if (list.isEmpty()) {
            throw invalid(field + " must not be an empty array");
        }
        StringBuilder sb = new StringBuilder();
        boolean strings = !list.isEmpty() && list.get(0) instanceof String;
        for (int i = 0; i < list.size(); i++) {
            Object e = list.get(i);
            if (strings) {
                if (!(e instanceof String s)) {
                    throw invalid(field + "[" + i + "] must be a string like the other elements");
                }
                append(sb, s);
            } else if (idsAllowed && isInteger(e)) {
                append(sb, e.toString());
            } else if (idsAllowed && e instanceof List<?> inner) {
                if (inner.isEmpty()) {
                    throw invalid(field + "[" + i + "] must not be an empty array");
                }
                for (int j = 0; j < inner.size(); j++) {
                    if (!isInteger(inner.get(j))) {
                        throw invalid(field + "[" + i + "][" + j + "] must be an integer token id");
                    }
                    append(sb, inner.get(j).toString());
                }
            } else {
                throw invalid(field + "[" + i + "] must be " + (idsAllowed ? "a string or a token id" : "a string"));
            }
        }
        return sb.toString();
    }

    private static boolean isInteger(Object o) {
        return o instanceof Integer || o instanceof Long || o instanceof java.math.BigInteger;
    }

    private static void append(StringBuilder sb, String s) {
        if (sb.length() > 0) {
            sb.append(' ');
        }
        sb.append(s);
    }

    static GatewayException invalid(String message) {
        return GatewayError.INVALID_REQUEST.exception(message);
    }
}
