package dev.caravan.tokens;

import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How a chat template expects message {@code content} (vLLM's {@code --chat-template-content-format}): one string (text
 * parts joined with {@code "\n"}), or OpenAI's list of parts ({@code [{"type": "text", "text": ...}]}).
 *
 * <p>{@link #detect} follows vLLM's {@code auto} rule: a template that loops over a message's content
 * ({@code {% for part in message['content'] %}}, where {@code message} is the variable of a loop over
 * {@code messages} or over a variable set from it, such as {@code loop_messages}) wants parts; any other wants a
 * string. vLLM walks the template's Jinja2 AST; this matches the same loops in the source text.
 */
public enum ContentFormat {
    STRING,
    OPENAI;

    private static final Pattern SET_FROM_MESSAGES = Pattern.compile(
            "\\{%-?\\s*set\\s+(\\w+)\\s*=\\s*(\\w+)\\b");
    private static final Pattern FOR_LOOP = Pattern.compile(
            "\\{%-?\\s*for\\s+(\\w+)\\s+in\\s+([^%]*?)\\s*-?%\\}");

    /** The flag's value: {@code auto}, {@code string} or {@code openai}; null for auto. */
    public static ContentFormat parse(String value) {
        if (value == null || value.isBlank() || value.equalsIgnoreCase("auto")) {
            return null;
        }
        return valueOf(value.trim().toUpperCase(Locale.ROOT));
    }

    /** vLLM's {@code auto} detection on the template source. */
    public static ContentFormat detect(String template) {
        Set<String> messageLists = new LinkedHashSet<>(Set.of("messages"));
        Matcher set = SET_FROM_MESSAGES.matcher(template);
        while (set.find()) {
            if (messageLists.contains(set.group(2))) {
                messageLists.add(set.group(1));
            }
        }
        Set<String> messageVars = new LinkedHashSet<>();
        Matcher loop = FOR_LOOP.matcher(template);
        while (loop.find()) {
            String iter = loop.group(2).trim();
            for (String list : messageLists) {
                if (accesses(iter, list, null)) {
                    messageVars.add(loop.group(1));
                }
            }
        }
        loop.reset();
        while (loop.find()) {
            String iter = loop.group(2).trim();
            for (String message : messageVars) {
                if (accesses(iter, message, "content")) {
                    return OPENAI;
                }
            }
        }
        return STRING;
    }

    /**
     * True when {@code expr} is {@code var} (or {@code var.key} / {@code var['key']}), possibly sliced or filtered.
     */
    private static boolean accesses(String expr, String var, String key) {
        String e = expr.replaceAll("\\s+", "");
        int pipe = e.indexOf('|');
        if (pipe >= 0) {
            e = e.substring(0, pipe);
        }
        e = e.replaceAll("\\[[^\\]'\"]*:[^\\]'\"]*]$", ""); // a slice: messages[1:]
        if (e.startsWith("(") && e.endsWith(")")) {
            e = e.substring(1, e.length() - 1);
        }
        if (key == null) {
            return e.equals(var);
        }
        return e.equals(var + "." + key) || e.equals(var + "['" + key + "']") || e.equals(var + "[\"" + key + "\"]");
    }
}
