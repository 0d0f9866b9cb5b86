package dev.caravan.policies.text;

import java.util.List;
import java.util.Map;

/**
 * Caravan's fixed chat template. The engine simulator renders chat requests with it to get the prompt it tokenizes and
 * caches, and the gateway uses the very same rendering as the routing text of a chat request, so the approximate tree,
 * the precise KV policy and the simulated engine all see one string.
 *
 * <p>Format, in prompt order (every section ends with a newline):
 * <pre>
 * &lt;|tools|&gt;\n{tools as compact JSON}\n                         only when "tools" is a non-empty array
 * &lt;|{role}|&gt;\n{content}\n                                      for each message, in order
 *      content = a string, or the "text" of each text part joined by "\n" (other parts render as &lt;|{type}|&gt;);
 *      an assistant message with "tool_calls" appends "\n&lt;|tool_calls|&gt;{tool_calls as compact JSON}";
 *      a tool message with "tool_call_id" is prefixed by "[{tool_call_id}] "
 * &lt;|assistant|&gt;\n                                              the generation prompt, always
 * </pre>
 * Because every earlier turn renders identically when a conversation grows, turn n's rendering is a prefix of turn n+1's:
 * multi-turn chats keep their prefix-cache affinity (SGLang #26263 lost it by routing on the first message only).
 */
public final class ChatTemplate {

    /** Appended after the last message, as vLLM's {@code add_generation_prompt=True} does. */
    public static final String GENERATION_PROMPT = "<|assistant|>\n";

    private ChatTemplate() {
    }

    /**
     * Renders a conversation.
     *
     * @param messages the request's {@code messages}: a list of maps with {@code role}, {@code content}, optional
     *                 {@code tool_calls} and {@code tool_call_id}
     * @param tools    the request's {@code tools}, or null
     * @throws IllegalArgumentException when a message is not an object or has no string role
     */
    public static String render(List<?> messages, List<?> tools) {
        StringBuilder sb = new StringBuilder(256);
        if (tools != null && !tools.isEmpty()) {
            sb.append("<|tools|>\n");
            CompactJson.write(tools, sb);
            sb.append('\n');
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
            appendContent(m.get("content"), i, sb);
            Object toolCalls = m.get("tool_calls");
            if (toolCalls instanceof List<?> calls && !calls.isEmpty()) {
                sb.append("\n<|tool_calls|>");
                CompactJson.write(calls, sb);
            }
            sb.append('\n');
        }
        sb.append(GENERATION_PROMPT);
        return sb.toString();
    }

    private static void appendContent(Object content, int index, StringBuilder sb) {
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
}
