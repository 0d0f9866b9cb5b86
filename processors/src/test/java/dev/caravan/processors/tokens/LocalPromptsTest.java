package dev.caravan.processors.tokens;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.caravan.tokens.EngineDialect;
import dev.caravan.tokens.HubModelFiles;
import dev.caravan.tokens.LocalModel;

/** {@code --model-download}: a model without configured files gets them from the Hub (a local directory here). */
class LocalPromptsTest {

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

    private static TokensConfig noFiles() {
        return new TokensConfig(TokensConfig.Source.AUTO, EngineDialect.VLLM, Duration.ofSeconds(1), null, Map.of(),
                Map.of());
    }

    @Test
    void aModelIdWithoutFilesIsFetchedOnceInTheBackgroundAndThenTokenizedHere() throws IOException {
        Path main = hub.resolve(ID).resolve("resolve/main");
        Files.createDirectories(main);
        for (String f : List.of("tokenizer.json", "tokenizer_config.json")) {
            Files.copy(NEMO.resolve(f), main.resolve(f));
        }
        List<Runnable> queued = new ArrayList<>();
        try (LocalPrompts local = new LocalPrompts(noFiles(), Clock.systemUTC())) {
            local.downloadWith(new HubModelFiles(hub.toUri().toString(), cache, null), queued::add);

            assertThat(local.model(ID)).isNull();
            assertThat(local.model(ID)).isNull();
            assertThat(local.model("not an id")).isNull();
            assertThat(queued).hasSize(1);
            queued.get(0).run();

            LocalModel fetched = local.model(ID);
            assertThat(fetched).isNotNull();
            assertThat(fetched.hasChatTemplate()).isTrue();
            assertThat(queued).hasSize(1);
        }
    }

    @Test
    void aFailedFetchLeavesTheModelWithoutLocalTokensAndIsNotRetried() {
        List<Runnable> queued = new ArrayList<>();
        try (LocalPrompts local = new LocalPrompts(noFiles(), Clock.systemUTC())) {
            local.downloadWith(new HubModelFiles(hub.toUri().toString(), cache, null), queued::add);
            assertThat(local.model("org/absent")).isNull();
            queued.get(0).run();

            assertThat(local.model("org/absent")).isNull();
            assertThat(queued).hasSize(1);
        }
    }

    @Test
    void withoutDownloadsAModelWithoutFilesHasNone() {
        try (LocalPrompts local = new LocalPrompts(noFiles(), Clock.systemUTC())) {
            assertThat(local.model(ID)).isNull();
            assertThat(local.downloads()).isFalse();
        }
    }
}
