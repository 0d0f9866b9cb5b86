package dev.caravan.tokens;

import java.beans.FeatureDescriptor;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import jinjava.javax.el.ELContext;
import jinjava.javax.el.ELResolver;

/**
 * The Python methods chat templates call on strings and dicts, which Jinjava (resolving methods on the Java objects)
 * lacks. Strings: {@code startswith}/{@code endswith} (a string or a list of them), {@code strip}/{@code lstrip}/
 * {@code rstrip} (optional characters), {@code split} (optional separator and maxsplit), {@code upper}, {@code lower},
 * {@code title}, {@code capitalize}, {@code replace} (optional count), {@code join}, {@code find}, {@code count}.
 * Dicts: {@code items()} (as [key, value] pairs), {@code keys()}, {@code values()}, {@code get(key[, default])}.
 * Anything else falls through to Jinjava's resolvers. Whitespace means Python's {@code str.isspace}.
 */
final class PyMethods extends ELResolver {

    private static final Object NONE = new Object();

    @Override
    public Object invoke(ELContext context, Object base, Object method, Class<?>[] paramTypes, Object[] params) {
        if (!(method instanceof String name)) {
            return null;
        }
        Object[] p = params == null ? new Object[0] : params;
        Object out = NONE;
        if (base instanceof String s) {
            out = string(s, name, p);
        } else if (base instanceof Map<?, ?> m) {
            out = dict(m, name, p);
        }
        if (out == NONE) {
            return null;
        }
        context.setPropertyResolved(true);
        return out;
    }

    private static Object dict(Map<?, ?> m, String name, Object[] p) {
        return switch (name) {
            case "items" -> {
                List<List<Object>> pairs = new ArrayList<>(m.size());
                m.forEach((k, v) -> pairs.add(java.util.Arrays.asList(k, v)));
                yield pairs;
            }
            case "keys" -> new ArrayList<>(m.keySet());
            case "values" -> new ArrayList<>(m.values());
            case "get" -> m.containsKey(p[0]) ? m.get(p[0]) : (p.length > 1 ? p[1] : null);
            default -> NONE;
        };
    }

    private static Object string(String s, String name, Object[] p) {
        return switch (name) {
            case "startswith" -> anyOf(p[0], s::startsWith);
            case "endswith" -> anyOf(p[0], s::endsWith);
            case "strip" -> rstrip(lstrip(s, chars(p)), chars(p));
            case "lstrip" -> lstrip(s, chars(p));
            case "rstrip" -> rstrip(s, chars(p));
            case "split" -> split(s, p.length > 0 && p[0] != null ? str(p[0]) : null,
                    p.length > 1 ? ((Number) p[1]).intValue() : -1);
            case "upper" -> s.toUpperCase(Locale.ROOT);
            case "lower" -> s.toLowerCase(Locale.ROOT);
            case "capitalize" -> s.isEmpty() ? s
                    : s.substring(0, 1).toUpperCase(Locale.ROOT) + s.substring(1).toLowerCase(Locale.ROOT);
            case "title" -> title(s);
            case "replace" -> replace(s, str(p[0]), str(p[1]), p.length > 2 ? ((Number) p[2]).intValue() : -1);
            case "join" -> join(s, p[0]);
            case "find" -> (long) s.indexOf(str(p[0]));
            case "count" -> (long) count(s, str(p[0]));
            default -> NONE;
        };
    }

    private interface Test {
        boolean test(String candidate);
    }

    private static boolean anyOf(Object arg, Test t) {
        if (arg instanceof Iterable<?> options) {
            for (Object o : options) {
                if (t.test(str(o))) {
                    return true;
                }
            }
            return false;
        }
        return t.test(str(arg));
    }

    private static String str(Object o) {
        return o == null ? "None" : o.toString();
    }

    private static String chars(Object[] p) {
        return p.length > 0 && p[0] != null ? p[0].toString() : null;
    }

    /** Python's {@code str.isspace} for one char (Java's isWhitespace misses U+00A0 and friends, and 0x1C-0x1F). */
    static boolean isSpace(char c) {
        return Character.isWhitespace(c) || Character.isSpaceChar(c) || c == '\u0085';
    }

    private static boolean strippable(char c, String chars) {
        return chars == null ? isSpace(c) : chars.indexOf(c) >= 0;
    }

    static String lstrip(String s, String chars) {
        int i = 0;
        while (i < s.length() && strippable(s.charAt(i), chars)) {
            i++;
        }
        return s.substring(i);
    }

    static String rstrip(String s, String chars) {
        int i = s.length();
        while (i > 0 && strippable(s.charAt(i - 1), chars)) {
            i--;
        }
        return s.substring(0, i);
    }

    private static List<String> split(String s, String sep, int maxsplit) {
        List<String> out = new ArrayList<>();
        if (sep == null) {
            String rest = lstrip(s, null);
            while (!rest.isEmpty()) {
                if (maxsplit >= 0 && out.size() == maxsplit) {
                    out.add(rstrip(rest, null));
                    return out;
                }
                int i = 0;
                while (i < rest.length() && !isSpace(rest.charAt(i))) {
                    i++;
                }
                out.add(rest.substring(0, i));
                rest = lstrip(rest.substring(i), null);
            }
            return out;
        }
        if (sep.isEmpty()) {
            throw new IllegalArgumentException("empty separator");
        }
        int from = 0;
        while (maxsplit < 0 || out.size() < maxsplit) {
            int at = s.indexOf(sep, from);
            if (at < 0) {
                break;
            }
            out.add(s.substring(from, at));
            from = at + sep.length();
        }
        out.add(s.substring(from));
        return out;
    }

    private static String title(String s) {
        StringBuilder sb = new StringBuilder(s.length());
        boolean prevCased = false;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            sb.append(prevCased ? Character.toLowerCase(c) : Character.toUpperCase(c));
            prevCased = Character.isLetter(c);
        }
        return sb.toString();
    }

    private static String replace(String s, String old, String with, int count) {
        if (count < 0) {
            return s.replace(old, with);
        }
        StringBuilder sb = new StringBuilder();
        int from = 0;
        int done = 0;
        int at;
        while (done < count && (at = s.indexOf(old, from)) >= 0) {
            sb.append(s, from, at).append(with);
            from = at + old.length();
            done++;
        }
        return sb.append(s.substring(from)).toString();
    }

    private static String join(String sep, Object items) {
        List<String> parts = new ArrayList<>();
        if (items instanceof Iterable<?> it) {
            it.forEach(o -> parts.add(str(o)));
        }
        return String.join(sep, parts);
    }

    private static int count(String s, String sub) {
        if (sub.isEmpty()) {
            return s.length() + 1;
        }
        int n = 0;
        for (int at = s.indexOf(sub); at >= 0; at = s.indexOf(sub, at + sub.length())) {
            n++;
        }
        return n;
    }

    @Override
    public Class<?> getCommonPropertyType(ELContext context, Object base) {
        return null;
    }

    @Override
    public Iterator<FeatureDescriptor> getFeatureDescriptors(ELContext context, Object base) {
        return null;
    }

    @Override
    public Class<?> getType(ELContext context, Object base, Object property) {
        return null;
    }

    @Override
    public Object getValue(ELContext context, Object base, Object property) {
        return null;
    }

    @Override
    public boolean isReadOnly(ELContext context, Object base, Object property) {
        return true;
    }

    @Override
    public void setValue(ELContext context, Object base, Object property, Object value) {
    }
}
