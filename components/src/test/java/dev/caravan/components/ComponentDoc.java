package dev.caravan.components;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

import org.apache.camel.tooling.model.BaseOptionModel;
import org.apache.camel.tooling.model.ComponentModel;
import org.apache.camel.tooling.model.ComponentModel.EndpointHeaderModel;

/**
 * Renders the reference part of a component's user doc ({@code components/src/main/docs/<scheme>-component.adoc}) from
 * its generated catalog JSON: component options, path and query parameters, message headers. The rendered text sits
 * between {@value #START} and {@value #END}; everything around it is hand-written. So the catalog, which the build
 * generates from the annotations and setter javadoc, is the only source of option names, defaults and descriptions.
 *
 * <p>Regenerate after changing an option: {@code mvn -pl components test -Dtest='*OptionsDocTest'
 * -Dcaravan.docs.write=true}.
 */
public final class ComponentDoc {

    public static final String START = "// generated from the catalog JSON: START";
    public static final String END = "// generated from the catalog JSON: END";

    private ComponentDoc() {
    }

    /** The doc with its generated section replaced by a fresh rendering of {@code model}. */
    public static String replaceSection(String doc, ComponentModel model) {
        int start = doc.indexOf(START);
        int end = doc.indexOf(END);
        if (start < 0 || end < start) {
            throw new IllegalArgumentException("the doc has no '" + START + "' ... '" + END + "' section");
        }
        return doc.substring(0, start + START.length()) + "\n" + render(model) + doc.substring(end);
    }

    /**
     * Returns the doc as it should be; with {@code -Dcaravan.docs.write=true} also rewrites the file when it differs.
     */
    public static String expected(Path doc, ComponentModel model) throws IOException {
        String current = Files.readString(doc, StandardCharsets.UTF_8);
        String expected = replaceSection(current, model);
        if (Boolean.getBoolean("caravan.docs.write") && !expected.equals(current)) {
            Files.writeString(doc, expected, StandardCharsets.UTF_8);
        }
        return expected;
    }

    static String render(ComponentModel m) {
        StringBuilder sb = new StringBuilder();
        sb.append("// Do not edit this section: ComponentDoc renders it from ").append(m.getScheme()).append(".json.\n\n");
        sb.append("== Component options\n\n");
        sb.append("Set once for every endpoint, e.g. `camel.component.").append(m.getScheme())
                .append(".<option>=<value>` with camel-main; an endpoint URI overrides them.\n\n");
        Set<String> queryParameters = m.getEndpointParameterOptions().stream().map(BaseOptionModel::getName)
                .collect(Collectors.toSet());
        table(sb, m.getComponentOptions(), queryParameters);
        sb.append("== Endpoint options\n\n");
        sb.append("----\n").append(m.getSyntax()).append("\n----\n\n");
        sb.append("=== Path parameters\n\n");
        table(sb, m.getEndpointPathOptions(), Set.of());
        sb.append("=== Query parameters\n\n");
        sb.append("Durations take milliseconds or a Camel duration such as `2s` or `1m30s`.\n\n");
        table(sb, m.getEndpointParameterOptions(), Set.of());
        sb.append("== Message headers\n\n");
        headers(sb, m.getEndpointHeaders());
        return sb.toString();
    }

    /** One row per option; an option also listed as a query parameter refers there instead of repeating its text. */
    private static void table(StringBuilder sb, List<? extends BaseOptionModel> options, Set<String> describedBelow) {
        sb.append("[width=\"100%\",cols=\"2,5,^1,2\",options=\"header\"]\n|===\n| Name | Description | Default | Type\n");
        for (BaseOptionModel o : options) {
            String label = o.getLabel() == null || o.getLabel().isEmpty() ? "" : " (" + o.getLabel().replace(",", ", ") + ")";
            String required = o.isRequired() ? "*Required* " : "";
            String description = describedBelow.contains(o.getName()) ? "As the query parameter below." : cell(o.getDescription());
            sb.append("| *").append(o.getName()).append("*").append(label)
                    .append(" | ").append(required).append(description)
                    .append(" | ").append(defaultOf(o))
                    .append(" | ").append(typeOf(o)).append('\n');
        }
        sb.append("|===\n\n");
    }

    private static void headers(StringBuilder sb, List<EndpointHeaderModel> headers) {
        sb.append("[width=\"100%\",cols=\"2,5,^1,2\",options=\"header\"]\n|===\n| Name | Description | Set on | Type\n");
        for (EndpointHeaderModel h : headers) {
            sb.append("| `").append(h.getName()).append("` | ").append(cell(h.getDescription()))
                    .append(" | ").append(h.getLabel().replace(",", ", "))
                    .append(" | ").append(simpleName(h.getJavaType())).append('\n');
        }
        sb.append("|===\n");
    }

    private static String defaultOf(BaseOptionModel o) {
        Object d = o.getDefaultValue();
        if (d == null || d.toString().isEmpty()) {
            return "";
        }
        String s = d.toString();
        return "duration".equals(o.getType()) && s.chars().allMatch(Character::isDigit) ? s + " ms" : s;
    }

    private static String typeOf(BaseOptionModel o) {
        if (o.getEnums() != null && !o.getEnums().isEmpty()) {
            return "one of " + String.join(", ", o.getEnums());
        }
        return simpleName(o.getJavaType());
    }

    private static String simpleName(String javaType) {
        String t = javaType.replaceAll("<.*>", "");
        String simple = t.substring(t.lastIndexOf('.') + 1);
        return simple.toLowerCase(Locale.ROOT).equals("string") ? "String" : simple;
    }

    /** Description text safe in an AsciiDoc table cell. */
    private static String cell(String text) {
        return text == null ? "" : text.replace("|", "\\|");
    }
}
