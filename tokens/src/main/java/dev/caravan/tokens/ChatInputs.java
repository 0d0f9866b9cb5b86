package dev.caravan.tokens;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * What a chat template sees for an OpenAI chat request, built from the request as vLLM's OpenAI server builds it
 * ({@code parse_chat_messages}, {@code _postprocess_messages}, the tools' {@code model_dump()}), so the gateway renders
 * the prompt the engine renders:
 * <ul>
 *   <li>each message becomes {@code {role, content}}: content is one string (text parts joined with {@code "\n"}, an
 *       absent content {@code ""}) or, for {@link ContentFormat#OPENAI} templates, a list of
 *       {@code {"type": "text", "text": ...}} parts; non-text parts are not rendered (multimodal requests are routed
 *       on their text);</li>
 *   <li>assistant: {@code tool_calls} kept when not null (an empty list dropped; each {@code function.arguments}
 *       string parsed as JSON, {@code {}} when it is not JSON or absent); {@code reasoning} (or the older
 *       {@code reasoning_content}) copied to both {@code reasoning} and {@code reasoning_content};</li>
 *   <li>tool: {@code tool_call_id} kept; list content joined to one string;</li>
 *   <li>{@code name} kept when a string;</li>
 *   <li>tools: {@code {"type": "function", "function": {"name", "description", "parameters", ...}}} with declared
 *       fields first and absent ones {@code null} (pydantic's {@code model_dump}), other fields after, as sent. With
 *       {@link EngineDialect#SGLANG} the template gets each tool's {@code function} object only (SGLang's
 *       {@code item.function.model_dump()}), none when {@code tool_choice} is {@code "none"}, only the named one for a
 *       named {@code tool_choice}.</li>
 * </ul>
 *
 * @param messages            the conversation as the template sees it
 * @param tools               the tools, or null
 * @param addGenerationPrompt the request's {@code add_generation_prompt} (default true)
 * @param continueFinal       the request's {@code continue_final_message}: cut the rendering after the last message
 * @param kwargs              the request's {@code chat_template_kwargs}
 */
public record ChatInputs(List<Map<String, Object>> messages, List<Object> tools, boolean addGenerationPrompt,
                         boolean continueFinal, Map<String, Object> kwargs) {

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * @throws IllegalArgumentException when {@code messages} is not a non-empty array of objects with a string role
     */
    public static ChatInputs of(Map<String, Object> body, ContentFormat format, EngineDialect dialect) {
        if (!(body.get("messages") instanceof List<?> raw) || raw.isEmpty()) {
            throw new IllegalArgumentException("messages must be a non-empty array");
        }
        List<Map<String, Object>> messages = new ArrayList<>(raw.size());
        for (int i = 0; i < raw.size(); i++) {
            if (!(raw.get(i) instanceof Map<?, ?> m)) {
                throw new IllegalArgumentException("messages[" + i + "] must be an object");
            }
            messages.add(message(m, i, format));
        }
        Map<String, Object> kwargs = body.get("chat_template_kwargs") instanceof Map<?, ?> k ? copy(k) : Map.of();
        return new ChatInputs(messages, tools(body, dialect), !Boolean.FALSE.equals(body.get("add_generation_prompt")),
                Boolean.TRUE.equals(body.get("continue_final_message")), kwargs);
    }

    /** The text HF's {@code continue_final_message} cuts after: the final message's (last) text, stripped. */
    public String finalText() {
        Object content = messages.get(messages.size() - 1).get("content");
        if (content instanceof List<?> parts && !parts.isEmpty() && parts.get(parts.size() - 1) instanceof Map<?, ?> p) {
            content = p.get("text");
        }
        return content == null ? "" : PyMethods.rstrip(PyMethods.lstrip(content.toString(), null), null);
    }

    private static Map<String, Object> message(Map<?, ?> m, int index, ContentFormat format) {
        if (!(m.get("role") instanceof String role) || role.isEmpty()) {
            throw new IllegalArgumentException("messages[" + index + "].role must be a non-empty string");
        }
        List<String> texts = texts(m.get("content"), index);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("role", role);
        if (format == ContentFormat.OPENAI && !"tool".equals(role)) {
            List<Object> parts = new ArrayList<>(texts.size());
            for (String t : texts) {
                Map<String, Object> part = new LinkedHashMap<>();
                part.put("type", "text");
                part.put("text", t);
                parts.add(part);
            }
            out.put("content", parts);
        } else {
            out.put("content", String.join("\n", texts));
        }
        if ("assistant".equals(role)) {
            if (m.get("tool_calls") instanceof List<?> calls) {
                if (!calls.isEmpty()) {
                    out.put("tool_calls", toolCalls(calls));
                }
            }
            Object reasoning = m.get("reasoning") != null ? m.get("reasoning") : m.get("reasoning_content");
            if (reasoning instanceof String r) {
                out.put("reasoning", r);
                out.put("reasoning_content", r);
            }
        } else if ("tool".equals(role) && m.containsKey("tool_call_id")) {
            out.put("tool_call_id", m.get("tool_call_id"));
        }
        if (m.get("name") instanceof String name) {
            out.put("name", name);
        }
        return out;
    }

    private static List<String> texts(Object content, int index) {
        if (content == null) {
            return List.of();
        }
        if (content instanceof String s) {
            return List.of(s);
        }
        if (!(content instanceof List<?> parts)) {
            throw new IllegalArgumentException("messages[" + index + "].content must be a string or an array of parts");
        }
        List<String> out = new ArrayList<>(parts.size());
        for (Object p : parts) {
            if (p instanceof String s) {
                out.add(s);
            } else if (p instanceof Map<?, ?> part) {
                Object type = part.get("type");
                String key = "thinking".equals(type) ? "thinking" : "refusal".equals(type) ? "refusal" : "text";
                if (part.get(key) instanceof String text && (type == null || "text".equals(type)
                        || "input_text".equals(type) || "output_text".equals(type) || key.equals(type))) {
                    out.add(text);
                }
            }
        }
        return out;
    }

    private static List<Object> toolCalls(List<?> calls) {
        List<Object> out = new ArrayList<>(calls.size());
        for (Object c : calls) {
            if (!(c instanceof Map<?, ?> call)) {
                out.add(c);
                continue;
            }
            Map<String, Object> copy = copy(call);
            if (copy.get("function") instanceof Map<?, ?> fn) {
                Map<String, Object> function = copy(fn);
                Object args = function.get("arguments");
                if (args instanceof String s) {
                    function.put("arguments", parseArguments(s));
                } else if (!(args instanceof Map<?, ?>) && !(args instanceof List<?>)) {
                    function.put("arguments", new LinkedHashMap<>());
                }
                copy.put("function", function);
            }
            out.add(copy);
        }
        return out;
    }

    private static Object parseArguments(String s) {
        try {
            return JSON.readValue(s, Object.class);
        } catch (JsonProcessingException e) {
            return new LinkedHashMap<>();
        }
    }

    private static List<Object> tools(Map<String, Object> body, EngineDialect dialect) {
        if (!(body.get("tools") instanceof List<?> raw)) {
            return null;
        }
        Object choice = body.get("tool_choice");
        if (dialect == EngineDialect.SGLANG && ("none".equals(choice) || raw.isEmpty())) {
            return null;
        }
        String named = choice instanceof Map<?, ?> c && c.get("function") instanceof Map<?, ?> f
                && f.get("name") instanceof String n ? n : null;
        List<Object> out = new ArrayList<>(raw.size());
        for (Object t : raw) {
            if (!(t instanceof Map<?, ?> tool)) {
                throw new IllegalArgumentException("tools must be an array of objects");
            }
            Map<String, Object> function = function(tool.get("function"));
            if (dialect == EngineDialect.SGLANG) {
                if (named == null || named.equals(function.get("name"))) {
                    out.add(function);
                }
                continue;
            }
            Map<String, Object> dumped = new LinkedHashMap<>();
            dumped.put("type", tool.get("type") != null ? tool.get("type") : "function");
            dumped.put("function", function);
            tool.forEach((k, v) -> {
                if (!"type".equals(k) && !"function".equals(k)) {
                    dumped.put(String.valueOf(k), v);
                }
            });
            out.add(dumped);
        }
        return out;
    }

    /** pydantic's dump of vLLM's FunctionDefinition: name, description, parameters first, then extra fields. */
    private static Map<String, Object> function(Object raw) {
        if (!(raw instanceof Map<?, ?> fn) || !(fn.get("name") instanceof String)) {
            throw new IllegalArgumentException("tools[].function must be an object with a string name");
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("name", fn.get("name"));
        out.put("description", fn.get("description"));
        out.put("parameters", fn.get("parameters"));
        fn.forEach((k, v) -> out.putIfAbsent(String.valueOf(k), v));
        return out;
    }

    private static Map<String, Object> copy(Map<?, ?> m) {
        Map<String, Object> out = new LinkedHashMap<>();
        m.forEach((k, v) -> out.put(String.valueOf(k), v));
        return out;
    }
}
