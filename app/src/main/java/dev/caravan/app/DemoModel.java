package dev.caravan.app;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;

/**
 * The demo's model files: a small real Hugging Face byte-level BPE {@code tokenizer.json} and its
 * {@code tokenizer_config.json} (chat template rendering Caravan's chat format), shipped in {@code caravan.jar} under
 * {@code demo-model/} (docs/simulator.md, "Demo model"). The demo's engines load them with {@code --tokenizer}, its
 * gateway with {@code --kv-tokenizer}: both tokenize through the same artifact, not through shared code.
 */
final class DemoModel {

    static final String RESOURCE_DIR = "demo-model/";
    static final List<String> FILES = List.of("tokenizer.json", "tokenizer_config.json");

    private DemoModel() {
    }

    /** Copies the files into a fresh temporary directory (removed when the JVM exits) and returns it. */
    static Path extract() {
        try {
            Path dir = Files.createTempDirectory("caravan-demo-model");
            dir.toFile().deleteOnExit();
            for (String name : FILES) {
                try (InputStream in = DemoModel.class.getClassLoader().getResourceAsStream(RESOURCE_DIR + name)) {
                    if (in == null) {
                        throw new IllegalStateException("caravan.jar lacks " + RESOURCE_DIR + name);
                    }
                    Path file = dir.resolve(name);
                    Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
                    file.toFile().deleteOnExit();
                }
            }
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot extract the demo model: " + e.getMessage(), e);
        }
    }
}
