package dev.caravan.components.podwatch;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import dev.caravan.components.ComponentDoc;
import dev.caravan.components.GeneratedCatalog;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * components/src/main/docs/pod-watch-component.adoc lists the options and headers exactly as the generated catalog
 * does ({@link ComponentDoc}). Rewrite after changing an option: {@code mvn -pl components test
 * -Dtest=PodWatchOptionsDocTest -Dcaravan.docs.write=true}.
 */
class PodWatchOptionsDocTest {

    private static final Path DOC = Path.of("src", "main", "docs", "pod-watch-component.adoc");

    private final DefaultCamelContext camel = new DefaultCamelContext();

    @AfterEach
    void stop() {
        camel.stop();
    }

    @Test
    void componentDocListsTheCatalogsOptionsAndHeaders() throws Exception {
        String expected = ComponentDoc.expected(DOC, GeneratedCatalog.model(camel, "pod-watch"));

        assertThat(Files.readString(DOC, StandardCharsets.UTF_8)).as("pod-watch-component.adoc is out of date: run mvn"
                + " -pl components test -Dtest=PodWatchOptionsDocTest -Dcaravan.docs.write=true").isEqualTo(expected);
        assertThat(expected).contains("| *resyncInterval* (consumer) |")
                .contains(PodWatchConfiguration.DEFAULT_RESYNC_INTERVAL_MS + " ms | Duration")
                .contains("| `" + PodWatchConstants.EVENT_TYPE + "` |");
    }
}
