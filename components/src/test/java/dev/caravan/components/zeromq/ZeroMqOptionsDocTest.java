package dev.caravan.components.zeromq;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import org.apache.camel.spi.UriParam;
import org.apache.camel.spi.UriPath;
import org.junit.jupiter.api.Test;

/**
 * Keeps docs/kv-events.md's option table and {@link ZeroMqConfiguration} in step (the build generates no catalog), and
 * guards against Camel's classic drift between an option's annotated default and its field initializer.
 */
class ZeroMqOptionsDocTest {

    private static final Path DOC = Path.of("..", "docs", "kv-events.md");

    /** option → [kind, default] as documented. */
    private static Map<String, String[]> documented() throws IOException {
        String doc = Files.readString(DOC);
        String table = doc.substring(doc.indexOf("<!-- zeromq-options:begin -->"), doc.indexOf("<!-- zeromq-options:end -->"));
        Map<String, String[]> rows = new LinkedHashMap<>();
        for (String line : table.split("\n")) {
            if (!line.startsWith("| `")) {
                continue;
            }
            String[] cells = line.split("\\|");
            rows.put(cells[1].trim().replace("`", ""), new String[] {cells[2].trim(), cells[3].trim()});
        }
        return rows;
    }

    /** option → [kind, default] from the class: the annotation label and the freshly constructed field value. */
    private static Map<String, String[]> declared() throws IllegalAccessException {
        ZeroMqConfiguration fresh = new ZeroMqConfiguration();
        Map<String, String[]> out = new LinkedHashMap<>();
        for (Field f : ZeroMqConfiguration.class.getDeclaredFields()) {
            UriPath path = f.getAnnotation(UriPath.class);
            UriParam param = f.getAnnotation(UriParam.class);
            if (path == null && param == null) {
                continue;
            }
            f.setAccessible(true);
            out.put(f.getName(), new String[] {path != null ? "path" : param.label(), render(f.get(fresh))});
        }
        return out;
    }

    private static String render(Object value) {
        if (value == null) {
            return "—";
        }
        if (value instanceof Duration d) {
            return "`" + d.toMillis() + "`";
        }
        if (value instanceof String s && s.isEmpty()) {
            return "`\"\"`";
        }
        return "`" + value + "`";
    }

    @Test
    void theDocumentedOptionsAreExactlyTheConfigurationsWithTheirKindsAndDefaults() throws Exception {
        Map<String, String[]> doc = documented();
        Map<String, String[]> code = declared();

        assertThat(doc.keySet()).containsExactlyElementsOf(code.keySet());
        code.forEach((name, kindAndDefault) -> assertThat(doc.get(name)).as(name).containsExactly(kindAndDefault));
    }

    @Test
    void everyAnnotatedDefaultEqualsTheFieldInitializer() throws Exception {
        ZeroMqConfiguration fresh = new ZeroMqConfiguration();
        for (Field f : ZeroMqConfiguration.class.getDeclaredFields()) {
            UriParam param = f.getAnnotation(UriParam.class);
            if (param == null) {
                continue;
            }
            f.setAccessible(true);
            Object value = f.get(fresh);
            String expected = value == null ? "" : value instanceof Duration d ? Long.toString(d.toMillis()) : value.toString();
            assertThat(param.defaultValue()).as(f.getName()).isEqualTo(expected);
        }
    }
}
