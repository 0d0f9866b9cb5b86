package dev.caravan.sim.text;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.List;
import java.util.Map;

/**
 * Python's {@code json.dumps(x, ensure_ascii=False, indent=..., separators=...)}, which Hugging Face's chat templates
 * call as their {@code tojson} filter, for the values a JSON parser produces (Map, List, String, Number, Boolean,
 * null): keys in insertion order; strings escape only {@code "}, {@code \}, and control characters ({@code \n},
 * {@code \r}, {@code \t}, {@code \b}, {@code \f}, else {@code \}{@code u00XX}); integers in full; floats as Python's
 * {@code repr} ({@code 1.0}, {@code 1e+16}, {@code 1e-05}); {@code true}/{@code false}/{@code null}. Without an indent
 * the separators default to {@code ", "} and {@code ": "}; with one, items go on new lines and the item separator is
 * {@code ","}.
 */
public final class PyJson {

    private PyJson() {
    }

    /**
     * @param indent        spaces per level, or null for one line
     * @param itemSeparator null for Python's default
     * @param keySeparator  null for Python's default
     */
    public static String dumps(Object value, Integer indent, String itemSeparator, String keySeparator) {
        String item = itemSeparator != null ? itemSeparator : indent == null ? ", " : ",";
        String key = keySeparator != null ? keySeparator : ": ";
        StringBuilder sb = new StringBuilder();
        write(value, indent, item, key, 0, sb);
        return sb.toString();
    }

    private static void write(Object v, Integer indent, String item, String key, int level, StringBuilder sb) {
        if (v == null) {
            sb.append("null");
        } else if (v instanceof Boolean b) {
            sb.append(b ? "true" : "false");
        } else if (v instanceof CharSequence s) {
            quote(s, sb);
        } else if (v instanceof Double || v instanceof Float || v instanceof BigDecimal) {
            sb.append(floatRepr(((Number) v).doubleValue()));
        } else if (v instanceof Number n) {
            sb.append(n instanceof BigInteger bi ? bi.toString() : Long.toString(n.longValue()));
        } else if (v instanceof Map<?, ?> m) {
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
                newline(indent, level + 1, sb);
                quote(String.valueOf(e.getKey()), sb);
                sb.append(key);
                write(e.getValue(), indent, item, key, level + 1, sb);
            }
            newline(indent, level, sb);
            sb.append('}');
        } else if (v instanceof List<?> l) {
            if (l.isEmpty()) {
                sb.append("[]");
                return;
            }
            sb.append('[');
            for (int i = 0; i < l.size(); i++) {
                if (i > 0) {
                    sb.append(item);
                }
                newline(indent, level + 1, sb);
                write(l.get(i), indent, item, key, level + 1, sb);
            }
            newline(indent, level, sb);
            sb.append(']');
        } else if (v instanceof Object[] arr) {
            write(List.of(arr), indent, item, key, level, sb);
        } else {
            quote(v.toString(), sb);
        }
    }

    private static void newline(Integer indent, int level, StringBuilder sb) {
        if (indent != null) {
            sb.append('\n').append(" ".repeat(indent * level));
        }
    }

    /** A JSON string as Python writes it with {@code ensure_ascii=False}. */
    public static void quote(CharSequence s, StringBuilder sb) {
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

    /** Python's {@code repr(float)}: shortest round-trip digits, scientific below 1e-4 and from 1e16 on. */
    static String floatRepr(double d) {
        if (Double.isNaN(d)) {
            return "NaN";
        }
        if (Double.isInfinite(d)) {
            return d > 0 ? "Infinity" : "-Infinity";
        }
        if (d == 0) {
            return (1 / d < 0) ? "-0.0" : "0.0";
        }
        BigDecimal bd = new BigDecimal(Double.toString(d)).stripTrailingZeros();
        String digits = bd.unscaledValue().abs().toString();
        int exp = digits.length() - 1 - bd.scale();               // decimal exponent of the first digit
        String sign = d < 0 ? "-" : "";
        if (exp < -4 || exp >= 16) {
            String mant = digits.length() == 1 ? digits : digits.charAt(0) + "." + digits.substring(1);
            return sign + mant + "e" + (exp < 0 ? "-" : "+") + String.format("%02d", Math.abs(exp));
        }
        String plain = bd.abs().toPlainString();
        return sign + (plain.contains(".") ? plain : plain + ".0");
    }
}
