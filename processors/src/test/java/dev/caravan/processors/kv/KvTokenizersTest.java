package dev.caravan.processors.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.caravan.policies.text.PseudoTokenizer;
import dev.caravan.policies.text.Tokenizer;
import dev.caravan.processors.config.CaravanFlags;
import dev.caravan.processors.config.ConfigResolver;
import dev.caravan.processors.config.GatewayConfig;

/**
 * {@code --kv-tokenizer PATH} and {@code --kv-add-special-tokens} from the command line to the tokenizer kv_aware
 * hashes with: the flag decides whether the tokenizer.json's BOS post-processor runs.
 */
class KvTokenizersTest {

    @TempDir
    static Path dir;
    static Path tokenizerJson;

    @BeforeAll
    static void writeTokenizer() throws IOException {
        tokenizerJson = HfTokenizerTest.writeTokenizer(dir);
    }

    private static GatewayConfig resolve(String... args) {
        return ConfigResolver.resolve(args, Map.of(), dir).config();
    }

    @Test
    void addsTheBosTokenByDefaultAsVllmCompletionsDo() {
        GatewayConfig config = resolve("--policy", "kv_aware", "--kv-tokenizer", tokenizerJson.toString());
        assertThat(config.getBoolean(CaravanFlags.KV_ADD_SPECIAL_TOKENS)).isTrue();
        try (KvTokenizers source = KvTokenizers.from(config)) {
            Tokenizer t = source.tokenizer(config.get(CaravanFlags.KV_TOKENIZER), 4);
            assertThat(t.encode("hello world")).containsExactly(1000, 40, 41);
        }
    }

    @Test
    void leavesTheBosTokenOutWhenTheFlagSaysFalse() {
        GatewayConfig config = resolve("--policy", "kv_aware", "--kv-tokenizer", tokenizerJson.toString(),
                "--kv-add-special-tokens", "false");
        try (KvTokenizers source = KvTokenizers.from(config)) {
            Tokenizer t = source.tokenizer(config.get(CaravanFlags.KV_TOKENIZER), 4);
            assertThat(t.encode("hello world")).containsExactly(40, 41);
        }
    }

    @Test
    void theBareFlagMeansTrue() {
        GatewayConfig config = resolve("--kv-add-special-tokens", "--kv-tokenizer", tokenizerJson.toString());
        try (KvTokenizers source = KvTokenizers.from(config)) {
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
