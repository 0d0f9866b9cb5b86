package dev.caravan.sim.text;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Keyword arguments whose value is an expression ({@code namespace(last_query_index=messages|length - 1)}, in Qwen3's
 * template): Jinja2 binds the whole expression to the name, Jinjava binds only what precedes the first operator
 * ({@code last_query_index=messages|length}) and applies the rest to the named parameter, which fails. {@link #rewrite}
 * puts every keyword argument's value in parentheses inside the template's tags ({@code {{ }}} and {@code {% %}}),
 * which gives Jinja2's reading; string literals are left as they are.
 */
final class KeywordArguments {

    private static final Pattern KEYWORD = Pattern.compile("(?s)(\\s*[A-Za-z_][A-Za-z0-9_]*\\s*=)(?!=)(.*)");

    private KeywordArguments() {
    }

    /** The source with each keyword argument's value inside a tag wrapped in parentheses. */
    static String rewrite(String source) {
        StringBuilder out = new StringBuilder(source.length() + 16);
        int i = 0;
        while (i < source.length()) {
            int open = nextTag(source, i);
            if (open < 0) {
                out.append(source, i, source.length());
                break;
            }
            String close = source.charAt(open + 1) == '{' ? "}}" : "%}";
            int end = tagEnd(source, open + 2, close);
            out.append(source, i, open + 2).append(expression(source.substring(open + 2, end)));
            i = end;
        }
        return out.toString();
    }

    private static int nextTag(String s, int from) {
        int a = s.indexOf("{{", from);
        int b = s.indexOf("{%", from);
        return a < 0 ? b : b < 0 ? a : Math.min(a, b);
    }

    /** Where the tag's closing delimiter starts, skipping string literals. */
    private static int tagEnd(String s, int from, String close) {
        char quote = 0;
        for (int i = from; i < s.length(); i++) {
            char c = s.charAt(i);
            if (quote != 0) {
                if (c == '\\') {
                    i++;
                } else if (c == quote) {
                    quote = 0;
                }
            } else if (c == '\'' || c == '"') {
                quote = c;
            } else if (s.startsWith(close, i)) {
                return i;
            }
        }
        return s.length();
    }

    /** An expression with the keyword arguments of its calls (nested ones first) parenthesised. */
    private static String expression(String e) {
        StringBuilder out = new StringBuilder(e.length() + 8);
        char quote = 0;
        for (int i = 0; i < e.length(); i++) {
            char c = e.charAt(i);
            if (quote != 0) {
                out.append(c);
                if (c == '\\' && i + 1 < e.length()) {
                    out.append(e.charAt(++i));
                } else if (c == quote) {
                    quote = 0;
                }
            } else if (c == '\'' || c == '"') {
                quote = c;
                out.append(c);
            } else if (c == '(') {
                int close = matching(e, i);
                boolean call = isCall(out);
                String inner = expression(e.substring(i + 1, close));
                out.append('(').append(call ? keywords(inner) : inner).append(close < e.length() ? ")" : "");
                i = close;
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    /** Whether the parenthesis about to be appended follows a name, a call or a subscript. */
    private static boolean isCall(CharSequence before) {
        int j = before.length() - 1;
        while (j >= 0 && Character.isWhitespace(before.charAt(j))) {
            j--;
        }
        if (j < 0) {
            return false;
        }
        char p = before.charAt(j);
        return Character.isLetterOrDigit(p) || p == '_' || p == ')' || p == ']';
    }

    /** The index of the parenthesis closing the one at {@code open}, or the length when none does. */
    private static int matching(String e, int open) {
        int depth = 0;
        char quote = 0;
        for (int i = open; i < e.length(); i++) {
            char c = e.charAt(i);
            if (quote != 0) {
                if (c == '\\') {
                    i++;
                } else if (c == quote) {
                    quote = 0;
                }
            } else if (c == '\'' || c == '"') {
                quote = c;
            } else if (c == '(' || c == '[' || c == '{') {
                depth++;
            } else if (c == ')' || c == ']' || c == '}') {
                if (--depth == 0) {
                    return i;
                }
            }
        }
        return e.length();
    }

    /** A call's arguments with each keyword argument's value parenthesised. */
    private static String keywords(String args) {
        List<String> parts = new ArrayList<>();
        int depth = 0;
        char quote = 0;
        int start = 0;
        for (int i = 0; i < args.length(); i++) {
            char c = args.charAt(i);
            if (quote != 0) {
                if (c == '\\') {
                    i++;
                } else if (c == quote) {
                    quote = 0;
                }
            } else if (c == '\'' || c == '"') {
                quote = c;
            } else if (c == '(' || c == '[' || c == '{') {
                depth++;
            } else if (c == ')' || c == ']' || c == '}') {
                depth--;
            } else if (c == ',' && depth == 0) {
                parts.add(args.substring(start, i));
                start = i + 1;
            }
        }
        parts.add(args.substring(start));
        List<String> out = new ArrayList<>(parts.size());
        for (String p : parts) {
            Matcher m = KEYWORD.matcher(p);
            out.add(m.matches() && !m.group(2).isBlank() ? m.group(1) + "(" + m.group(2) + ")" : p);
        }
        return String.join(",", out);
    }
}
