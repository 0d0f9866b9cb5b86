package dev.caravan.components.zeromq;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import dev.caravan.components.ComponentDoc;
import dev.caravan.components.GeneratedCatalog;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.tooling.model.ComponentModel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * components/src/main/docs/zeromq-component.adoc lists the options and headers exactly as the generated catalog does
 * (its reference section is rendered from zeromq.json by {@link ComponentDoc}), and docs/kv-events.md points there
 * instead of keeping a second table. Rewrite after changing an option: {@code mvn -pl components test
 * -Dtest=ZeroMqOptionsDocTest -Dcaravan.docs.write=true}.
 */
class ZeroMqOptionsDocTest {

    private static final Path DOC = Path.of("src", "main", "docs", "zeromq-component.adoc");
    private static final Path KV_EVENTS = Path.of("..", "docs", "kv-events.md");

    private final DefaultCamelContext camel = new DefaultCamelContext();

    @AfterEach
    void stop() {
        camel.stop();
    }

    @Test
    void componentDocListsTheCatalogsOptionsAndHeaders() throws Exception {
        ComponentModel model = GeneratedCatalog.model(camel, "zeromq");
        String expected = ComponentDoc.expected(DOC, model);

        assertThat(Files.readString(DOC, StandardCharsets.UTF_8)).as("zeromq-component.adoc is out of date: run mvn -pl"
                + " components test -Dtest=ZeroMqOptionsDocTest -Dcaravan.docs.write=true").isEqualTo(expected);
        assertThat(expected).contains("| *highWaterMark* (common) | Messages queued per peer")
                .contains("| *receiveTimeout* (consumer) | How long the consumer thread waits for a message before"
                        + " re-checking whether it must stop (milliseconds or a duration). Bounds the time a route"
                        + " stop waits for the thread; it does not delay messages. | "
                        + ZeroMqConfiguration.DEFAULT_RECEIVE_TIMEOUT_MS + " ms | Duration")
                .contains("| `" + ZeroMqConstants.TOPIC + "` |");
    }

    @Test
    void kvEventsGuideLinksToTheComponentDocInsteadOfRepeatingTheOptions() throws Exception {
        String guide = Files.readString(KV_EVENTS, StandardCharsets.UTF_8);

        assertThat(guide).contains("components/src/main/docs/zeromq-component.adoc")
                .doesNotContain("| `highWaterMark` |")
                .doesNotContain("reflection-based");
    }
}
