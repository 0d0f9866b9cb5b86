package dev.caravan.processors.config;

import java.util.List;
import java.util.Map;

/**
 * Renders the configuration table of {@code docs/configuration.md} from {@link CaravanFlags}, so the documentation lists
 * exactly the flags the gateway accepts with their real defaults. {@code ConfigurationDocTest} fails when the file's
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
            sb.append("| Flag | Property | Environment | Default | Description |\n");
            sb.append("|---|---|---|---|---|\n");
            for (CaravanFlag f : section.getValue()) {
                sb.append("| `").append(f.flag()).append(arity(f)).append("` | `").append(f.key()).append("` | `")
                        .append(f.envVar()).append("` | ")
                        .append(f.defaultValue().isEmpty() ? "(unset)" : "`" + f.defaultValue() + "`").append(" | ")
                        .append(f.description().replace("|", "\\|")).append(" |\n");
            }
        }
        return sb.append('\n').append(END).toString();
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
