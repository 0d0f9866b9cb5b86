package dev.caravan.processors.tokens;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import dev.caravan.tokens.EngineDialect;
import dev.caravan.tokens.ModelFiles;

class TokensConfigTest {

    @Test
    void readsPerModelEntriesAndADefaultForTheOthers() {
        Map<String, ModelFiles> models = TokensConfig.models(
                List.of("Qwen/Qwen3-8B=/models/qwen3", "/models/llama"), List.of("Qwen/Qwen3-8B=/tok/qwen.json"),
                List.of("/templates/tools.jinja"));
        assertThat(models.get("Qwen/Qwen3-8B")).isEqualTo(new ModelFiles("Qwen/Qwen3-8B", Path.of("/models/qwen3"),
                Path.of("/tok/qwen.json"), Path.of("/templates/tools.jinja")));
        assertThat(models.get(TokensConfig.DEFAULT_MODEL)).isEqualTo(new ModelFiles(TokensConfig.DEFAULT_MODEL,
                Path.of("/models/llama"), null, Path.of("/templates/tools.jinja")));
        assertThat(models.get("Qwen/Qwen3-8B").tokenizerJson()).isEqualTo(Path.of("/tok/qwen.json"));
    }

    @Test
    void findsTokenizerJsonInsideADirectory() {
        ModelFiles files = new ModelFiles("m", Path.of("../models/qwen3"), null, null);
        assertThat(files.tokenizerJson()).isEqualTo(Path.of("../models/qwen3/tokenizer.json"));
        assertThat(files.tokenizerDir()).isEqualTo(Path.of("../models/qwen3").toAbsolutePath());
    }

    @Test
    void rejectsAModelNamedTwice() {
        assertThatThrownBy(() -> TokensConfig.models(List.of("m=/a", "m=/b"), List.of(), List.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("--model-path names model m twice");
    }

    @Test
    void rejectsAChatTemplateForAModelWithoutFiles() {
        assertThatThrownBy(() -> TokensConfig.models(List.of(), List.of(), List.of("m=/t.jinja")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--chat-template for model m needs a --model-path or --tokenizer-path for it");
    }

    @Test
    void readsLoraAdaptersAndRejectsAnEntryWithoutBase() {
        assertThat(TokensConfig.loraAdapters(List.of("sql-lora=Qwen/Qwen3-8B"))).containsEntry("sql-lora",
                "Qwen/Qwen3-8B");
        assertThatThrownBy(() -> TokensConfig.loraAdapters(List.of("sql-lora")))
                .hasMessage("--lora-adapters sql-lora: expected ADAPTER=BASE_MODEL");
    }

    @Test
    void rejectsANonPositiveEngineTimeout() {
        assertThatThrownBy(() -> new TokensConfig(TokensConfig.Source.ENGINE, EngineDialect.VLLM, Duration.ZERO, null,
                Map.of(), Map.of())).hasMessageContaining("--tokens-engine-timeout-ms");
    }
}
