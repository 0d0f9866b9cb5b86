package dev.caravan.processors.config;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How {@link DocumentedDefaults} compares a quoted default with the code's: numbers numerically ({@code 4,096},
 * {@code 2^26}, {@code 60 s} against a {@link Duration}), switches as booleans ({@code on}, {@code off}), {@code unset}
 * or {@code ""} as an empty default, enums by name, anything else as text without its backticks or quotes.
 */
final class QuotedValues {

    private QuotedValues() {
    }

    static boolean equalValue(String quoted, String unit, Object actual) {
        if (actual instanceof Duration d) {
            BigDecimal q = number(quoted);
            return q != null && unit != null
                    && q.multiply(seconds(unit)).compareTo(new BigDecimal(d.toNanos()).movePointLeft(9)) == 0;
        }
        if (actual instanceof Number n) {
            BigDecimal q = number(quoted);
            if (q == null) {
                return "off".equalsIgnoreCase(strip(quoted)) && new BigDecimal(n.toString()).signum() == 0;
            }
            return q.compareTo(new BigDecimal(n.toString())) == 0;
        }
        if (actual instanceof Boolean b) {
            return String.valueOf(b).equals(bool(strip(quoted)));
        }
        if (actual instanceof Enum<?> e) {
            String q = strip(quoted);
            return q.equalsIgnoreCase(e.name()) || q.equalsIgnoreCase(e.toString());
        }
        return strip(quoted).equals(String.valueOf(actual));
    }

    static boolean equalText(String quoted, String actual, FlagType type) {
        String q = strip(quoted);
        if (type == FlagType.SWITCH || type == FlagType.BOOLEAN) {
            return bool(q).equals(actual.isEmpty() ? "false" : actual.toLowerCase(Locale.ROOT));
        }
        if (q.equalsIgnoreCase(actual)) {
            return true;
        }
        if (actual.isEmpty()) {
            return q.isEmpty() || q.matches("(?i)unset|none|empty|off");
        }
        return type.numeric() && "off".equalsIgnoreCase(q) && number(actual) != null
                && number(actual).signum() == 0;
    }

    static String bool(String q) {
        return switch (q.toLowerCase(Locale.ROOT)) {
            case "on", "true", "yes", "enabled" -> "true";
            case "off", "false", "no", "disabled" -> "false";
            default -> q;
        };
    }

    static BigDecimal number(String s) {
        String t = strip(s).replace(",", "");
        Matcher pow = Pattern.compile("^(\\d+)\\^(\\d+)$").matcher(t);
        if (pow.matches()) {
            return new BigDecimal(pow.group(1)).pow(Integer.parseInt(pow.group(2)));
        }
        try {
            return new BigDecimal(t);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    static BigDecimal seconds(String unit) {
        return switch (unit) {
            case "ms" -> new BigDecimal("0.001");
            case "min" -> new BigDecimal(60);
            default -> BigDecimal.ONE;
        };
    }

    static String strip(String v) {
        String t = v.trim();
        if (t.startsWith("{@code ") && t.endsWith("}")) {
            t = t.substring(7, t.length() - 1);
        }
        if (t.length() >= 2 && (t.startsWith("`") && t.endsWith("`") || t.startsWith("\"") && t.endsWith("\""))) {
            t = t.substring(1, t.length() - 1);
        }
        while (t.endsWith(",")) {
            t = t.substring(0, t.length() - 1);
        }
        return t.trim();
    }
}
