package dev.caravan.tokens;

import java.util.regex.Pattern;

/**
 * Rewrites a Jinja2 template's source where Jinjava parses it differently from Jinja2, without changing what Jinja2
 * would render:
 * <ul>
 *   <li><b>keep_trailing_newline</b> false: Jinja2 drops one newline at the end of the source (template files usually
 *       end with one), Jinjava renders it;</li>
 *   <li><b>lstrip_blocks</b>: Jinja2 removes the spaces and tabs between a line's start and a block or comment tag;
 *       Jinjava's option also strips before a tag in mid-line, so the rule is applied here instead;</li>
 *   <li><b>keyword arguments</b>: Jinjava binds {@code name=value} tighter than arithmetic, so
 *       {@code namespace(last=messages|length - 1)} (Qwen3's template) subtracts 1 from the named parameter itself;
 *       every keyword argument's value inside call parentheses is wrapped in parentheses
 *       ({@code last=(messages|length - 1)}), which Jinja2 reads the same way;</li>
 *   <li><b>step slices</b>: Jinjava parses {@code [start:stop]} but not {@code [start:stop:step]}
 *       ({@code messages[::-1]}, Qwen3's); such a slice becomes the filter {@code (messages|py_slice(none, none, -1))}
 *       with Python's slice semantics ({@link PySlice}).</li>
 * </ul>
 */
final class JinjaSource {

    private static final Pattern LSTRIP_BLOCKS = Pattern.compile("(?m)^[ \\t]+(?=\\{[%#](?!\\+))");
    /** {@code base[start:stop:step]}, base an identifier path with optional subscripts. */
    private static final Pattern STEP_SLICE = Pattern.compile(
            "(\\b[A-Za-z_][\\w.]*(?:\\[[^\\[\\]]*])*)\\[([^\\[\\]:]*):([^\\[\\]:]*):([^\\[\\]:]*)]");
    /** The filter a step slice becomes. */
    static final String SLICE_FILTER = "py_slice";

    private JinjaSource() {
    }

    static String normalize(String template) {
        String t = template;
        if (t.endsWith("\r\n")) {
            t = t.substring(0, t.length() - 2);
        } else if (t.endsWith("\n") || t.endsWith("\r")) {
            t = t.substring(0, t.length() - 1);
        }
        return wrapKeywordArguments(LSTRIP_BLOCKS.matcher(t).replaceAll(""));
    }

    /** Wraps keyword argument values inside {@code {{ }}} and {@code {% %}} tags in parentheses. */
    static String wrapKeywordArguments(String s) {
        StringBuilder out = new StringBuilder(s.length() + 16);
        int i = 0;
        while (i < s.length()) {
            int open = s.indexOf('{', i);
            if (open < 0 || open + 1 >= s.length()) {
                out.append(s, i, s.length());
                break;
            }
            char kind = s.charAt(open + 1);
            if (kind == '#') { // a comment: copied whole
                int end = s.indexOf("#}", open + 2);
                end = end < 0 ? s.length() : end + 2;
                out.append(s, i, end);
                i = end;
            } else if (kind == '{' || kind == '%') {
                out.append(s, i, open + 2);
                int end = tagEnd(s, open + 2, kind == '{' ? "}}" : "%}");
                out.append(rewriteExpression(stepSlices(s.substring(open + 2, end))));
                i = end;
            } else {
                out.append(s, i, open + 1);
                i = open + 1;
            }
        }
        return out.toString();
    }

    /** {@code x[a:b:c]} (Jinjava parses no step) as {@code (x|py_slice(a, b, c))}, empty bounds as {@code none}. */
    static String stepSlices(String e) {
        java.util.regex.Matcher m = STEP_SLICE.matcher(e);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(out, java.util.regex.Matcher.quoteReplacement("(" + m.group(1) + "|" + SLICE_FILTER
                    + "(" + bound(m.group(2)) + ", " + bound(m.group(3)) + ", " + bound(m.group(4)) + "))"));
        }
        m.appendTail(out);
        return out.toString();
    }

    private static String bound(String b) {
        return b.isBlank() ? "none" : b.trim();
    }

    /** Index of the tag's closing delimiter, skipping string literals. */
    private static int tagEnd(String s, int from, String close) {
        char quote = 0;
        for (int i = from; i < s.length() - 1; i++) {
            char c = s.charAt(i);
            if (quote != 0) {
                if (c == '\\') {
                    i++;
                } else if (c == quote) {
                    quote = 0;
                }
            } else if (c == '\'' || c == '"') {
                quote = c;
            } else if (s.startsWith(close, i) || (c == '-' && s.startsWith(close, i + 1))) {
                return i;
            }
        }
        return s.length();
    }

    private static String rewriteExpression(String e) {
        StringBuilder out = new StringBuilder(e.length() + 8);
        int depth = 0;
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
                continue;
            }
            if (c == '\'' || c == '"') {
                quote = c;
            } else if (c == '(' || c == '[' || c == '{') {
                depth++;
            } else if (c == ')' || c == ']' || c == '}') {
                depth--;
            } else if (c == '=' && depth > 0 && isKeywordEquals(e, i)) {
                int end = argumentEnd(e, i + 1);
                out.append("=(").append(rewriteExpression(e.substring(i + 1, end)).trim()).append(')');
                i = end - 1;
                continue;
            }
            out.append(c);
        }
        return out.toString();
    }

    /** {@code name=} inside parentheses, not {@code ==}, {@code !=}, {@code <=}, {@code >=}. */
    private static boolean isKeywordEquals(String e, int at) {
        char before = at > 0 ? e.charAt(at - 1) : ' ';
        char after = at + 1 < e.length() ? e.charAt(at + 1) : ' ';
        if (before == '=' || before == '!' || before == '<' || before == '>' || after == '=') {
            return false;
        }
        int j = at - 1;
        while (j >= 0 && e.charAt(j) == ' ') {
            j--;
        }
        return j >= 0 && (Character.isLetterOrDigit(e.charAt(j)) || e.charAt(j) == '_');
    }

    /** End of a keyword argument's value: the next top-level comma or closing bracket. */
    private static int argumentEnd(String e, int from) {
        int depth = 0;
        char quote = 0;
        for (int i = from; i < e.length(); i++) {
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
                if (depth == 0) {
                    return i;
                }
                depth--;
            } else if (c == ',' && depth == 0) {
                return i;
            }
        }
        return e.length();
    }
}
