package dev.caravan.processors.request;

import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

/**
 * The routing text of a Responses API request ({@code POST /v1/responses}): {@code instructions}, then {@code input} —
 * a string as is, or the text of its items in order — joined with single spaces. An item contributes, as SGLang's
 * router reads it: a message's content (a string, or its {@code input_text}/{@code output_text} parts), a reasoning
 * item's text parts, a function call's {@code arguments}, a function call output's {@code output}. Other items and
 * parts (images, files) contribute nothing. The instructions are Caravan's addition: the engine renders them first, as a
 * system message, so requests sharing them share a prompt prefix.
 */
final class ResponsesText {

    private ResponsesText() {
    }

    static String of(Map<String, Object> body) {
        StringJoiner text = new StringJoiner(" ");
        Object instructions = body.get("instructions");
        if (instructions != null) {
            if (!(instructions instanceof String s)) {
                throw RoutingText.invalid("instructions must be a string");
            }
            if (!s.isEmpty()) {
                text.add(s);
            }
        }
        Object input = body.get("input");
        if (input instanceof String s) {
            text.add(s);
        } else if (input instanceof List<?> items) {
            for (int i = 0; i < items.size(); i++) {
                if (!(items.get(i) instanceof Map<?, ?> item)) {
                    throw RoutingText.invalid("input[" + i + "] must be an object");
                }
                String t = itemText(item);
                if (!t.isEmpty()) {
                    text.add(t);
                }
            }
        } else if (input == null) {
            throw RoutingText.invalid("input is required");
        } else {
            throw RoutingText.invalid("input must be a string or an array of items");
        }
        return text.toString();
    }

    private static String itemText(Map<?, ?> item) {
        Object type = item.get("type");
        if ("function_call".equals(type)) {
            return item.get("arguments") instanceof String s ? s : "";
        }
        if ("function_call_output".equals(type)) {
            return item.get("output") instanceof String s ? s : "";
        }
        Object content = item.get("content");
        if ("reasoning".equals(type)) {
            content = item.get("content") != null ? item.get("content") : item.get("summary");
        }
        if (content instanceof String s) {
            return s;
        }
        StringJoiner parts = new StringJoiner(" ");
        if (content instanceof List<?> list) {
            for (Object p : list) {
                if (p instanceof Map<?, ?> part && part.get("text") instanceof String t) {
                    Object pt = part.get("type");
                    if (pt == null || "input_text".equals(pt) || "output_text".equals(pt) || "reasoning_text".equals(pt)
                            || "summary_text".equals(pt) || "text".equals(pt)) {
                        parts.add(t);
                    }
                }
            }
        }
        return parts.toString();
    }
}
