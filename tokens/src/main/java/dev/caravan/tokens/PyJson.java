package dev.caravan.tokens;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Python's {@code json.dumps(x, ensure_ascii=False, indent=..., separators=..., sort_keys=...)}, which is what
 * transformers' {@code tojson} filter calls (Jinja2's own {@code tojson} HTML-escapes and sorts keys; chat templates
 * never see it). Defaults as Python's: separators {@code ", "} and {@code ": "}, or {@code ","} and {@code ": "} with an
 * indent; keys in the map's order unless sorted; non-ASCII written as is; floats as Python's {@code repr}
 * ({@code 1.0}, {@code 1e+20}, {@code 1.5e-07}); {@code NaN}/{@code Infinity} as Python writes them.
 */
final class PyJson {

    private PyJson() {
    }

    /**
     * @param indent   spaces per level, or null for one line
     * @param itemSep  separator between items, or null for the default
     * @param keySep   separator between a key and its value, or null for the default
     * @param sortKeys sort object keys (as strings)
     */
    static String dumps(Object value, Integer indent, String itemSep, String keySep, boolean sortKeys) {
        StringBuilder sb = new StringBuilder();
        String item = itemSep != null ? itemSep : indent != null ? "," : ", ";
        String key = keySep != null ? keySep : ": ";
        write(value, indent, item, key, sortKeys, 0, sb);
        return sb.toString();
    }

    private static void write(Object v, Integer indent, String item, String key, boolean sort, int depth,
                              StringBuilder sb) {
        if (v == null) {
            sb.append("null");
        } else if (v instanceof Boolean b) {
            sb.append(b ? "true" : "false");
        } else if (v instanceof Double || v instanceof Float) {
            sb.append(pyFloat(((Number) v).doubleValue()));
        } else if (v instanceof BigDecimal d) {
            sb.append(pyFloat(d.doubleValue()));
        } else if (v instanceof Number n) {
            sb.append(n instanceof BigInteger ? n.toString() : Long.toString(n.longValue()));
        } else if (v instanceof CharSequence s) {
            quote(s, sb);
        } else if (v instanceof Map<?, ?> map) {
            Map<?, ?> m = sort ? sorted(map) : map;
            if (m.isEmpty()) {
                sb.append("{}");
                return;
            }
            sb.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : m.entrySet()) {
                if (!first) {
                    sb.append(item);
                }
                first = false;
                newline(indent, depth + 1, sb);
                quote(keyText(e.getKey()), sb);
                sb.append(key);
                write(e.getValue(), indent, item, key, sort, depth + 1, sb);
            }
            newline(indent, depth, sb);
            sb.append('}');
        } else if (v instanceof Iterable<?> list) {
            if (list instanceof List<?> l && l.isEmpty()) {
                sb.append("[]");
                return;
            }
            sb.append('[');
            boolean first = true;
            for (Object o : list) {
                if (!first) {
                    sb.append(item);
                }
                first = false;
                newline(indent, depth + 1, sb);
                write(o, indent, item, key, sort, depth + 1, sb);
            }
            newline(indent, depth, sb);
            sb.append(']');
        } else if (v instanceof Object[] array) {
            write(List.of(array), indent, item, key, sort, depth, sb);
        } else {
            quote(v.toString(), sb);
        }
    }

    /** Python's key coercion: strings as they are, None/True/False as Python's JSON writes them. */
    private static String keyText(Object k) {
        if (k == null) {
            return "null";
        }
        if (k instanceof Boolean b) {
            return b ? "true" : "false";
        }
        return k.toString();
    }

    private static Map<?, ?> sorted(Map<?, ?> map) {
        TreeMap<String, Object> out = new TreeMap<>();
        map.forEach((k, val) -> out.put(keyText(k), val));
        return out;
    }

    private static void newline(Integer indent, int depth, StringBuilder sb) {
        if (indent != null) {
            sb.append('\n').append(" ".repeat(indent * depth));
        }
    }

    /** Python's {@code float.__repr__}: shortest round-trip digits, exponent form below 1e-4 and from 1e16. */
    static String pyFloat(double d) {
        if (Double.isNaN(d)) {
            return "NaN";
        }
        if (Double.isInfinite(d)) {
            return d > 0 ? "Infinity" : "-Infinity";
        }
        if (d == 0) {
            return (1 / d < 0) ? "-0.0" : "0.0";
        }
        BigDecimal exact = new BigDecimal(Double.toString(d)).stripTrailingZeros();
        String digits = exact.unscaledValue().abs().toString();
        int exponent = digits.length() - 1 - exact.scale(); // decimal exponent of the first digit
        String sign = d < 0 ? "-" : "";
        if (exponent < -4 || exponent >= 16) {
            String mantissa = digits.length() == 1 ? digits : digits.charAt(0) + "." + digits.substring(1);
            return sign + mantissa + "e" + (exponent < 0 ? "-" : "+") + String.format("%02d", Math.abs(exponent));
        }
        String plain = exact.abs().toPlainString();
        return sign + (plain.contains(".") ? plain : plain + ".0");
    }

    /** JSON string with Python's escapes ({@code ensure_ascii=False}: only quote, backslash and controls). */
    static void quote(CharSequence s, StringBuilder sb) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                case '\b' -> sb.append("\\b");
                case '\f' -> sb.append("\\f");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }
}
