package dev.caravan.tokens;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Path;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.caravan.policies.text.PseudoTokenizer;
import dev.caravan.policies.text.Tokenizer;

/**
 * The tokenizer kv_aware hashes with for {@code --kv-tokenizer PATH}: whether the tokenizer.json's BOS post-processor
 * runs is {@code --kv-add-special-tokens} (read by the gateway's KV feature).
 */
class KvTokenizersTest {

    @TempDir
    static Path dir;
    static Path tokenizerJson;

    @BeforeAll
    static void writeTokenizer() throws IOException {
        tokenizerJson = HfTokenizerTest.writeTokenizer(dir);
    }

    @Test
    void addsTheBosTokenWhenAskedAsVllmCompletionsDo() {
        try (KvTokenizers source = new KvTokenizers(true)) {
            assertThat(source.addSpecialTokens()).isTrue();
            Tokenizer t = source.tokenizer(tokenizerJson.toString(), 4);
            assertThat(t.encode("hello world")).containsExactly(1000, 40, 41);
        }
    }

    @Test
    void leavesTheBosTokenOutOtherwise() {
        try (KvTokenizers source = new KvTokenizers(false)) {
            Tokenizer t = source.tokenizer(tokenizerJson.toString(), 4);
            assertThat(t.encode("hello world")).containsExactly(40, 41);
        }
    }

    @Test
    void addsSpecialTokensByDefault() {
        try (KvTokenizers source = new KvTokenizers()) {
            assertThat(source.tokenizer(tokenizerJson.toString(), 4).encode("world")).containsExactly(1000, 41);
        }
    }

    @Test
    void sharesOneTokenizerPerPathAndKeepsThePseudoTokenizerBuiltIn() {
        try (KvTokenizers source = new KvTokenizers(false)) {
            Tokenizer a = source.tokenizer(tokenizerJson.toString(), 4);
            Tokenizer b = source.tokenizer(dir.resolve(".").resolve("tokenizer.json").toString(), 4);
            assertThat(b).isSameAs(a);
            assertThat(source.tokenizer("pseudo", 4)).isInstanceOf(PseudoTokenizer.class);
        }
    }

    @Test
    void aMissingTokenizerFileNamesTheFlagAndThePath() {
        String missing = dir.resolve("missing.json").toString();
        try (KvTokenizers source = new KvTokenizers(true)) {
            assertThatThrownBy(() -> source.tokenizer(missing, 4)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("--kv-tokenizer " + missing + ": tokenizer file not found: " + missing);
        }
    }
}
