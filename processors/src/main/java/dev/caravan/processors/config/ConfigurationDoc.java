package dev.caravan.processors.config;

import java.util.List;
import java.util.Map;

/**
 * Renders the configuration table of {@code docs/configuration.md} from {@link CaravanFlags}, so the documentation lists
 * exactly the flags the gateway accepts with their real defaults and accepted values. {@code ConfigurationDocTest} fails when the file's
 * generated section differs (and rewrites it with {@code -Dcaravan.docs.write=true}).
 */
public final class ConfigurationDoc {

    /** Marks the start of the generated section in docs/configuration.md. */
    public static final String BEGIN = "<!-- BEGIN GENERATED FLAG TABLE (ConfigurationDocTest) -->";
    /** Marks its end. */
    public static final String END = "<!-- END GENERATED FLAG TABLE -->";

    private ConfigurationDoc() {
    }

    /** The generated section, markers included. */
    public static String render() {
        StringBuilder sb = new StringBuilder(BEGIN).append('\n');
        for (Map.Entry<String, List<CaravanFlag>> section : CaravanFlags.bySection().entrySet()) {
            sb.append("\n### ").append(section.getKey()).append("\n\n");
            sb.append("| Flag | Property | Environment | Default | Values | Description |\n");
            sb.append("|---|---|---|---|---|---|\n");
            for (CaravanFlag f : section.getValue()) {
                sb.append("| `").append(f.flag()).append(arity(f)).append("` | `").append(f.key()).append("` | `")
                        .append(f.envVar()).append("` | ")
                        .append(f.defaultValue().isEmpty() ? "(unset)" : "`" + f.defaultValue() + "`").append(" | ")
                        .append(cell(f.values())).append(" | ")
                        .append(cell(f.description())).append(" |\n");
            }
        }
        sb.append("\n### Defaults that differ from SGLang\n\n")
                .append("`--sglang-defaults` restores SGLang's value of each of these (a setting given explicitly keeps "
                        + "its value).\n\n")
                .append("| Flag | Caravan default | SGLang default | Why Caravan's differs |\n|---|---|---|---|\n");
        for (CaravanFlag f : CaravanFlags.all()) {
            if (f.sglang() != null) {
                String ref = f.sglang().reference();
                String sglang = ref == null ? "`" + f.sglang().value() + "`"
                        : "the value of `" + CaravanFlags.byKey(ref).map(CaravanFlag::flag).orElse(ref) + "`";
                sb.append("| `").append(f.flag()).append("` | ")
                        .append(f.defaultValue().isEmpty() ? "(unset)" : "`" + f.defaultValue() + "`").append(" | ")
                        .append(sglang).append(" | ").append(cell(f.sglang().why())).append(" |\n");
            }
        }
        return sb.append('\n').append(END).toString();
    }

    private static String cell(String text) {
        return text.replace("|", "\\|");
    }

    private static String arity(CaravanFlag f) {
        return switch (f.type()) {
            case SWITCH -> "";
            case LIST -> " V...";
            case GROUPS -> " V... (repeatable)";
            case BOOLEAN -> " [true\\|false]";
            default -> " " + f.type().name();
        };
    }

    /**
     * The repository's {@code config/application.properties}: every row at its default, commented out, grouped by
     * section, so the file documents every key and changes nothing until a line is uncommented.
     */
    public static String propertiesFile() {
        StringBuilder sb = new StringBuilder();
        sb.append("# Caravan gateway settings. ./caravan run reads this file from ./config/application.properties when\n")
                .append("# it exists. Every setting is listed at its default and commented out: uncomment a line to change\n")
                .append("# it. Command-line flags, CARAVAN_* environment variables and --config FILE take precedence\n")
                .append("# (docs/configuration.md). camel.* keys (camel-main settings) may be added too.\n")
                .append("# Generated from CaravanFlags; ConfigurationDocTest keeps it in step.\n");
        for (Map.Entry<String, List<CaravanFlag>> section : CaravanFlags.bySection().entrySet()) {
            sb.append("\n# ---- ").append(section.getKey()).append(" ----\n");
            for (CaravanFlag f : section.getValue()) {
                sb.append("\n# ").append(f.description()).append(" (").append(f.flag())
                        .append(f.values().isEmpty() ? "" : "; " + f.values()).append(")\n");
                sb.append("#").append(f.key()).append(" = ").append(f.defaultValue()).append('\n');
            }
        }
        return sb.toString();
    }

    /** Replaces the generated section of a document (which must contain both markers). */
    public static String replaceSection(String document) {
        int b = document.indexOf(BEGIN);
        int e = document.indexOf(END);
        if (b < 0 || e < b) {
            throw new IllegalArgumentException("the document has no generated flag table markers");
        }
        return document.substring(0, b) + render() + document.substring(e + END.length());
    }
}
