package dev.caravan.processors.config;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Parses an SGLang-style command line into {@code caravan.*} properties using the rows of {@link CaravanFlags}.
 *
 * <p>Accepted forms: {@code --flag value}, {@code --flag=value}, {@code --switch}, variadic
 * {@code --worker-urls a b c} (values run to the next token that starts with {@code --}), and repeated group flags
 * ({@code --prefill URL 9000 --prefill URL2}). A {@link FlagType#BOOLEAN} flag given without a value means {@code true}.
 * A repeated {@link FlagType#LIST} flag appends. Unknown flags and missing values are errors that name the token; the
 * values themselves are checked later, with those of every other layer, by {@link GatewayConfig}.
 */
public final class ArgsParser {

    /** The outcome: properties set by the command line, and whether help was asked for. */
    public record Parsed(Map<String, String> properties, boolean help) {
    }

    private ArgsParser() {
    }

    /**
     * @throws IllegalArgumentException for an unknown flag, a missing value or a stray value
     */
    public static Parsed parse(String... args) {
        return parse(CaravanFlags.all(), args);
    }

    /** Parses against a given table (tests use small tables to cover every {@link FlagType}). */
    static Parsed parse(List<CaravanFlag> table, String... args) {
        Map<String, String> props = new LinkedHashMap<>();
        boolean help = false;
        int i = 0;
        while (i < args.length) {
            String token = args[i++];
            if (token.equals("--help") || token.equals("-h")) {
                help = true;
                continue;
            }
            if (!token.startsWith("--")) {
                throw new IllegalArgumentException("unexpected argument '" + token + "' (flags start with --)");
            }
            String name = token;
            String inline = null;
            int eq = token.indexOf('=');
            if (eq > 0) {
                name = token.substring(0, eq);
                inline = token.substring(eq + 1);
            }
            String flagName = name;
            CaravanFlag flag = table.stream().filter(f -> f.answersTo(flagName)).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException(
                            "unknown flag " + flagName + " (./caravan run --help lists them)"));
            List<String> values = new ArrayList<>();
            if (inline != null) {
                values.add(inline);
            } else {
                while (i < args.length && !args[i].startsWith("--")
                        && (flag.type().variadic() || values.isEmpty())) {
                    if (flag.type() == FlagType.SWITCH) {
                        break;
                    }
                    if (flag.type() == FlagType.BOOLEAN && !isBoolean(args[i])) {
                        break;
                    }
                    values.add(args[i++]);
                }
            }
            props.put(flag.key(), valueOf(flag, values, props.get(flag.key())));
        }
        return new Parsed(props, help);
    }

    private static boolean isBoolean(String s) {
        return s.equalsIgnoreCase("true") || s.equalsIgnoreCase("false");
    }

    private static String valueOf(CaravanFlag flag, List<String> values, String previous) {
        switch (flag.type()) {
            case SWITCH -> {
                if (!values.isEmpty()) {
                    throw new IllegalArgumentException(flag.flag() + " takes no value, got '" + values.get(0) + "'");
                }
                return "true";
            }
            case BOOLEAN -> {
                return values.isEmpty() ? "true" : values.get(0);
            }
            case LIST, GROUPS -> {
                if (values.isEmpty() && flag.type() == FlagType.LIST) {
                    return previous == null ? "" : previous; // SGLang's nargs="*": the flag alone sets nothing
                }
                if (values.isEmpty()) {
                    throw new IllegalArgumentException(flag.flag() + " needs at least one value");
                }
                String joined = flag.type().join(values);
                return previous == null || previous.isEmpty() ? joined : previous + "," + joined;
            }
            default -> {
                if (values.isEmpty()) {
                    throw new IllegalArgumentException(flag.flag() + " needs a value");
                }
                return values.get(0); // checked with every other layer's values by GatewayConfig
            }
        }
    }

    /** The {@code --help} text: every row with its default and accepted values, grouped by section. */
    public static String help() {
        StringBuilder sb = new StringBuilder("Usage: ./caravan run [flags]   (SGLang launch_router flags are accepted)\n");
        CaravanFlags.bySection().forEach((section, rows) -> {
            sb.append('\n').append(section).append(":\n");
            for (CaravanFlag f : rows) {
                String arg = switch (f.type()) {
                    case SWITCH -> "";
                    case LIST -> " VALUE...";
                    case GROUPS -> " VALUE... (repeatable)";
                    default -> " " + f.type().name();
                };
                sb.append("  ").append(f.flag()).append(arg);
                sb.append("\n      ").append(f.description());
                if (!f.defaultValue().isEmpty()) {
                    sb.append(" [default: ").append(f.defaultValue()).append(']');
                }
                if (!f.values().isEmpty()) {
                    sb.append("\n      values: ").append(f.values());
                }
                sb.append("\n      property ").append(f.key()).append(", env ").append(f.envVar()).append('\n');
            }
        });
        return sb.toString();
    }
}
