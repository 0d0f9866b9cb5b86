package dev.caravan.sim.text;

import java.util.List;
import java.util.Map;

/**
 * The simulator's own chat format, used with its synthetic tokenizer (and documented in docs/simulator.md, where the
 * gateway's routing text follows the same format, so synthetic fleets keep prefix affinity on chat without sharing
 * code). In prompt order, every section ending with a newline:
 * <pre>
 * &lt;|tools|&gt;\n{tools as compact JSON}\n             when tools is a non-empty array
 * &lt;|{role}|&gt;\n{content}\n                          for each message
 *    content: a string, or the text of each text part joined by "\n" (other parts render as &lt;|{type}|&gt;);
 *    "tool_calls" appends "\n&lt;|tool_calls|&gt;{tool_calls as compact JSON}"; "tool_call_id" prefixes "[{id}] "
 * &lt;|assistant|&gt;\n                                  when add_generation_prompt (the default)
 * </pre>
 * Compact JSON is Python's {@code json.dumps(x, separators=(",", ":"), ensure_ascii=False)} ({@link PyJson}).
 * {@code chat_template_kwargs} are ignored. Turn n's rendering is a prefix of turn n+1's.
 */
public final class DefaultChatTemplate implements ChatRenderer {

    /** Appended when {@code add_generation_prompt} is true. */
    public static final String GENERATION_PROMPT = "<|assistant|>\n";

    @Override
    public String render(List<?> messages, List<?> tools, boolean addGenerationPrompt, Map<String, Object> kwargs) {
        StringBuilder sb = new StringBuilder(256);
        if (tools != null && !tools.isEmpty()) {
            sb.append("<|tools|>\n").append(compact(tools)).append('\n');
        }
        for (int i = 0; i < messages.size(); i++) {
            if (!(messages.get(i) instanceof Map<?, ?> m)) {
                throw new IllegalArgumentException("messages[" + i + "] must be an object");
            }
            if (!(m.get("role") instanceof String role) || role.isEmpty()) {
                throw new IllegalArgumentException("messages[" + i + "].role must be a non-empty string");
            }
            sb.append("<|").append(role).append("|>\n");
            if (m.get("tool_call_id") instanceof String callId && !callId.isEmpty()) {
                sb.append('[').append(callId).append("] ");
            }
            content(m.get("content"), i, sb);
            if (m.get("tool_calls") instanceof List<?> calls && !calls.isEmpty()) {
                sb.append("\n<|tool_calls|>").append(compact(calls));
            }
            sb.append('\n');
        }
        if (addGenerationPrompt) {
            sb.append(GENERATION_PROMPT);
        }
        return sb.toString();
    }

    private static String compact(Object json) {
        return PyJson.dumps(json, null, ",", ":");
    }

    private static void content(Object content, int index, StringBuilder sb) {
        if (content == null) {
            return;
        }
        if (content instanceof CharSequence s) {
            sb.append(s);
            return;
        }
        if (!(content instanceof List<?> parts)) {
            throw new IllegalArgumentException("messages[" + index + "].content must be a string or an array of parts");
        }
        for (int p = 0; p < parts.size(); p++) {
            if (p > 0) {
                sb.append('\n');
            }
            if (!(parts.get(p) instanceof Map<?, ?> part)) {
                throw new IllegalArgumentException("messages[" + index + "].content[" + p + "] must be an object");
            }
            Object type = part.get("type");
            if ("text".equals(type) && part.get("text") instanceof CharSequence text) {
                sb.append(text);
            } else {
                sb.append("<|").append(type == null ? "part" : type).append("|>");
            }
        }
    }

    @Override
    public String name() {
        return "caravan-sim-default";
    }
}
