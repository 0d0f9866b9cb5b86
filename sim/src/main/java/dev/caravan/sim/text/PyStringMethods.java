package dev.caravan.sim.text;

import java.beans.FeatureDescriptor;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;

import jinjava.javax.el.ELContext;
import jinjava.javax.el.ELResolver;

/**
 * Python's {@code str} methods that chat templates call ({@code content.startswith('<tool_response>')},
 * {@code content.split('</think>')[-1].lstrip('\n')}...), which Jinjava, resolving methods on Java strings, lacks:
 * {@code startswith}, {@code endswith} (a string or a list of them), {@code strip}, {@code lstrip}, {@code rstrip}
 * (optional characters), {@code split} (optional separator and maxsplit), {@code upper}, {@code lower},
 * {@code replace}, {@code join}, {@code find}, {@code count}. Every other call falls through to Jinjava's resolvers.
 */
final class PyStringMethods extends ELResolver {

    @Override
    public Object invoke(ELContext context, Object base, Object method, Class<?>[] paramTypes, Object[] params) {
        if (!(base instanceof String s) || !(method instanceof String name)) {
            return null;
        }
        Object[] p = params == null ? new Object[0] : params;
        Object out = call(s, name, p);
        if (out != NO_SUCH_METHOD) {
            context.setPropertyResolved(true);
            return out;
        }
        return null;
    }

    private static final Object NO_SUCH_METHOD = new Object();

    private static Object call(String s, String name, Object[] p) {
        return switch (name) {
            case "startswith" -> anyOf(p[0], prefix -> s.startsWith(prefix));
            case "endswith" -> anyOf(p[0], suffix -> s.endsWith(suffix));
            case "strip" -> rstrip(lstrip(s, chars(p)), chars(p));
            case "lstrip" -> lstrip(s, chars(p));
            case "rstrip" -> rstrip(s, chars(p));
            case "split" -> split(s, p.length > 0 ? (String) p[0] : null, p.length > 1 ? ((Number) p[1]).intValue() : -1);
            case "upper" -> s.toUpperCase(Locale.ROOT);
            case "lower" -> s.toLowerCase(Locale.ROOT);
            case "replace" -> p.length > 2 ? replace(s, str(p[0]), str(p[1]), ((Number) p[2]).intValue())
                    : s.replace(str(p[0]), str(p[1]));
            case "join" -> join(s, p[0]);
            case "find" -> (long) s.indexOf(str(p[0]));
            case "count" -> (long) count(s, str(p[0]));
            default -> NO_SUCH_METHOD;
        };
    }

    private interface Test {
        boolean test(String candidate);
    }

    private static boolean anyOf(Object arg, Test t) {
        if (arg instanceof List<?> options) {
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

    /** Characters to strip: the argument, or null for whitespace. */
    private static String chars(Object[] p) {
        return p.length > 0 && p[0] != null ? p[0].toString() : null;
    }

    private static boolean strippable(char c, String chars) {
        return chars == null ? Character.isWhitespace(c) : chars.indexOf(c) >= 0;
    }

    private static String lstrip(String s, String chars) {
        int i = 0;
        while (i < s.length() && strippable(s.charAt(i), chars)) {
            i++;
        }
        return s.substring(i);
    }

    private static String rstrip(String s, String chars) {
        int i = s.length();
        while (i > 0 && strippable(s.charAt(i - 1), chars)) {
            i--;
        }
        return s.substring(0, i);
    }

    /** Python's split: on runs of whitespace (dropping empty ends) without a separator, else on the separator. */
    private static List<String> split(String s, String sep, int maxsplit) {
        List<String> out = new ArrayList<>();
        if (sep == null) {
            String rest = lstrip(s, null);
            while (!rest.isEmpty()) {
                if (maxsplit >= 0 && out.size() == maxsplit) {
                    out.add(rest);
                    return out;
                }
                int i = 0;
                while (i < rest.length() && !Character.isWhitespace(rest.charAt(i))) {
                    i++;
                }
                out.add(rest.substring(0, i));
                rest = lstrip(rest.substring(i), null);
            }
            return out;
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

    private static String replace(String s, String old, String with, int count) {
        StringBuilder sb = new StringBuilder();
        int from = 0;
        int done = 0;
        int at;
        while ((count < 0 || done < count) && (at = s.indexOf(old, from)) >= 0) {
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
