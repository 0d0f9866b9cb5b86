package dev.caravan.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which model files the bench's engines load, and how their tokens compare with the workloads' nominal ones. */
class EngineModelTest {

    @TempDir
    Path dir;

    @Test
    void theDefaultIsFoundFromAModuleDirectoryOfTheRepository() {
        EngineModel m = EngineModel.resolve(EngineModel.DEFAULT, Path.of(""));
        assertThat(m.path()).isEqualTo(Path.of("../models/qwen3").toAbsolutePath().normalize());
        assertThat(m.label()).isEqualTo("qwen3");
    }

    @Test
    void aTokenizerFileIsNamedByItsDirectory() throws IOException {
        Path file = Files.createDirectories(dir.resolve("models/tiny")).resolve("tokenizer.json");
        Files.writeString(file, "{}");
        Path below = Files.createDirectories(dir.resolve("a/b"));
        assertThat(EngineModel.resolve("models/tiny/tokenizer.json", below))
                .isEqualTo(new EngineModel(file.toAbsolutePath().normalize(), "tiny"));
    }

    @Test
    void syntheticLoadsNoFilesAndCountsNominalTokens() throws IOException {
        EngineModel m = EngineModel.resolve(EngineModel.SYNTHETIC, dir);
        assertThat(m).isEqualTo(new EngineModel(null, "synthetic"));
        assertThat(m.tokensPerNominalToken()).isEqualTo(1.0);
    }

    @Test
    void refusesAPathFoundNowhereNamingIt() {
        assertThatThrownBy(() -> EngineModel.resolve("models/none", dir))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--engine-tokenizer models/none not found in " + dir.toAbsolutePath()
                        + " or a directory above it (give a model directory, a tokenizer.json, or synthetic)");
    }

    @Test
    void qwen3CutsTheWorkloadTextIntoWordSizedTokens() throws IOException {
        // the workloads' text is English words of 2 to 8 letters and a space: about one Qwen3 token per word
        double ratio = EngineModel.resolve(EngineModel.DEFAULT, Path.of("")).tokensPerNominalToken();
        assertThat(ratio).isBetween(0.75, 0.95);
    }
}
