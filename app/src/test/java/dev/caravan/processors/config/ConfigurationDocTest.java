package dev.caravan.processors.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;

/**
 * docs/configuration.md must list every flag with its real default (its generated section must equal
 * {@link ConfigurationDoc#render()}) and every flag of the pinned SGLang router with its status
 * ({@link SglangFlagStatus#render}), and config/application.properties every key, commented out. Run with {@code -Dcaravan.docs.write=true} to rewrite the section after adding a row.
 * It runs in the application's module, whose class path holds the optional modules, so the table it renders has their
 * rows too (in {@code processors} alone it has only the core's and the built-in features').
 */
class ConfigurationDocTest {

    private static final Path DOC = Path.of("..", "docs", "configuration.md");
    private static final Path PROPERTIES = Path.of("..", "config", "application.properties");
    private static final String REGENERATE = "mvn -B -o -pl app -am test -Dtest=ConfigurationDocTest "
            + "-Dsurefire.failIfNoSpecifiedTests=false -Dcaravan.docs.write=true";

    @Test
    void configurationDocListsEveryFlagWithItsDefault() throws IOException {
        String doc = Files.readString(DOC, StandardCharsets.UTF_8);
        String expected = SglangFlagStatus.replaceSection(ConfigurationDoc.replaceSection(doc),
                SglangFlagsTest.LAUNCHER, SglangFlagsTest.BINARY);
        if (Boolean.getBoolean("caravan.docs.write") && !expected.equals(doc)) {
            Files.writeString(DOC, expected, StandardCharsets.UTF_8);
            doc = expected;
        }
        assertThat(doc).as("docs/configuration.md is out of date: run " + REGENERATE).isEqualTo(expected);
        for (CaravanFlag f : CaravanFlags.all()) {
            assertThat(doc).contains("`" + f.key() + "`");
        }
        for (UpstreamFlag f : SglangFlagsTest.BINARY) {
            assertThat(doc).contains("| `" + f.flag() + "` |");
        }
    }

    @Test
    void defaultPropertiesFileListsEveryKeyCommentedOut() throws IOException {
        String expected = ConfigurationDoc.propertiesFile();
        if (Boolean.getBoolean("caravan.docs.write")) {
            Files.createDirectories(PROPERTIES.getParent());
            Files.writeString(PROPERTIES, expected, StandardCharsets.UTF_8);
        }
        assertThat(Files.readString(PROPERTIES, StandardCharsets.UTF_8)).as("config/application.properties is out of "
                + "date: run " + REGENERATE)
                .isEqualTo(expected);
        assertThat(ConfigResolver.load(PROPERTIES)).as("nothing active by default").isEmpty();
    }
}
