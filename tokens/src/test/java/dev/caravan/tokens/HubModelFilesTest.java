package dev.caravan.tokens;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fetching a model's files by its id, on a Hub laid out in a local directory ({@code file:} endpoint; no network):
 * Mistral NeMo's files from the repository's models/ served as {@code mistralai/Mistral-Nemo-Instruct-2407}.
 */
class HubModelFilesTest {

    static final Path NEMO = Path.of("../models/mistral_nemo");
    static final String ID = "mistralai/Mistral-Nemo-Instruct-2407";

    @TempDir
    Path hub;
    @TempDir
    Path cache;

    @BeforeAll
    static void djlCache() {
        System.setProperty("ENGINE_CACHE_DIR", Path.of("target/djl-cache").toAbsolutePath().toString());
    }

    private HubModelFiles serving(String id, List<String> files) throws IOException {
        Path main = hub.resolve(id).resolve("resolve/main");
        Files.createDirectories(main);
        for (String f : files) {
            Files.copy(NEMO.resolve(f), main.resolve(f));
        }
        return new HubModelFiles(hub.toUri().toString(), cache, null);
    }

    @Test
    void fetchesTheTokenizerFilesAModelLoadsAndTokenizesWithAsFromItsOwnDirectory() throws IOException {
        ModelFiles fetched = serving(ID, List.of("tokenizer.json", "tokenizer_config.json")).fetch(ID);

        assertThat(fetched.model()).isEqualTo(ID);
        assertThat(fetched.modelPath()).isEqualTo(cache.resolve("mistralai--Mistral-Nemo-Instruct-2407"));
        assertThat(Files.readAllBytes(fetched.modelPath().resolve("tokenizer.json")))
                .isEqualTo(Files.readAllBytes(NEMO.resolve("tokenizer.json")));
        assertThat(fetched.modelPath().resolve("chat_template.jinja")).doesNotExist();
        Map<String, Object> chat = Map.of("messages", List.of(Map.of("role", "user", "content", "Route 66?")));
        try (LocalModel here = LocalModel.load(fetched, null, EngineDialect.VLLM, Clock.systemUTC());
             LocalModel original = LocalModel.load(new ModelFiles("nemo", NEMO, null, null), null, EngineDialect.VLLM,
                     Clock.systemUTC())) {
            assertThat(here.chat(chat)).containsExactly(original.chat(chat));
        }
    }

    @Test
    void aFileAlreadyFetchedIsNotFetchedAgain() throws IOException {
        HubModelFiles hubFiles = serving(ID, List.of("tokenizer.json", "tokenizer_config.json"));
        hubFiles.fetch(ID);
        Files.delete(hub.resolve(ID).resolve("resolve/main/tokenizer.json"));

        assertThat(hubFiles.fetch(ID).modelPath().resolve("tokenizer.json")).exists();
    }

    @Test
    void aMissingRequiredFileFailsNamingItsUrlAndLeavesNoPartialFile() throws IOException {
        HubModelFiles hubFiles = serving(ID, List.of("tokenizer.json"));

        assertThatThrownBy(() -> hubFiles.fetch(ID)).isInstanceOf(IOException.class)
                .hasMessage(hub.toUri() + ID + "/resolve/main/tokenizer_config.json: not found");
        try (var left = Files.list(cache.resolve("mistralai--Mistral-Nemo-Instruct-2407"))) {
            assertThat(left.map(p -> p.getFileName().toString())).containsExactly("tokenizer.json");
        }
    }

    @Test
    void refusesANameThatIsNotAHubModelId() {
        HubModelFiles hubFiles = new HubModelFiles(hub.toUri().toString(), cache, null);
        for (String bad : List.of("../etc", "a/b/c", "unknown model", "/abs")) {
            assertThatThrownBy(() -> hubFiles.fetch(bad)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("'" + bad + "' is not a Hugging Face model id");
        }
        assertThat(HubModelFiles.isModelId("Qwen/Qwen3-8B")).isTrue();
        assertThat(HubModelFiles.isModelId("qwen3")).isTrue();
    }
}
