package dev.caravan.tokens;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.StringJoiner;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.caravan.policies.kv.BlockKeys;

/**
 * Loads a tokenizer.json generated here (a WordLevel model: [UNK]=0, &lt;s&gt;=1000 prepended by a TemplateProcessing
 * post-processor as Llama's BOS is, "hello"=40, "world"=41, and "w&lt;i&gt;" = i for i in 1..32, so prompts of those
 * words hit vLLM's hash test vectors) through DJL, offline.
 */
class HfTokenizerTest {

    @TempDir
    static Path dir;
    static Path tokenizerJson;

    @BeforeAll
    static void writeTokenizer() throws IOException {
        tokenizerJson = writeTokenizer(dir);
    }

    /** Writes the test tokenizer.json (with its BOS post-processor) into {@code dir}; DJL's cache goes there too. */
    static Path writeTokenizer(Path dir) throws IOException {
        // Keep DJL's native-library extraction inside the build directory, not the user's home.
        System.setProperty("ENGINE_CACHE_DIR", dir.resolve("djl-cache").toString());
        StringJoiner vocab = new StringJoiner(",", "{", "}");
        vocab.add("\"[UNK]\":0").add("\"<s>\":1000").add("\"hello\":40").add("\"world\":41");
        for (int i = 1; i <= 32; i++) {
            vocab.add("\"w" + i + "\":" + i);
        }
        String json = """
                {
                  "version": "1.0",
                  "truncation": null,
                  "padding": null,
                  "added_tokens": [
                    {"id": 0, "content": "[UNK]", "single_word": false, "lstrip": false, "rstrip": false,
                     "normalized": false, "special": true},
                    {"id": 1000, "content": "<s>", "single_word": false, "lstrip": false, "rstrip": false,
                     "normalized": false, "special": true}
                  ],
                  "normalizer": null,
                  "pre_tokenizer": {"type": "Whitespace"},
                  "post_processor": {
                    "type": "TemplateProcessing",
                    "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
                    "pair": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                             {"Sequence": {"id": "B", "type_id": 1}}],
                    "special_tokens": {"<s>": {"id": "<s>", "ids": [1000], "tokens": ["<s>"]}}
                  },
                  "decoder": null,
                  "model": {"type": "WordLevel", "vocab": VOCAB, "unk_token": "[UNK]"}
                }
                """.replace("VOCAB", vocab.toString());
        return Files.writeString(dir.resolve("tokenizer.json"), json);
    }

    @Test
    void addsTheBosTokenByDefaultAsVllmCompletionsDo() throws IOException {
        try (HfTokenizer t = new HfTokenizer(tokenizerJson)) {
            assertThat(t.encode("hello world w7 unknown")).containsExactly(1000, 40, 41, 7, 0);
            assertThat(t.encode("")).containsExactly(1000);
            assertThat(t.name()).isEqualTo("hf:tokenizer.json");
        }
        assertThat(System.getProperty("ai.djl.offline")).isEqualTo("true");
    }

    @Test
    void leavesSpecialTokensOutWhenAsked() throws IOException {
        try (HfTokenizer t = new HfTokenizer(tokenizerJson, false)) {
            assertThat(t.encode("hello world w7 unknown")).containsExactly(40, 41, 7, 0);
            assertThat(t.encode("")).isEmpty();
        }
    }

    @Test
    void theBosTokenShiftsEveryBlockKey() throws IOException {
        String prompt = IntStream.rangeClosed(1, 32).mapToObj(i -> "w" + i).collect(Collectors.joining(" "));
        try (HfTokenizer with = new HfTokenizer(tokenizerJson, true);
             HfTokenizer without = new HfTokenizer(tokenizerJson, false)) {
            long[] engineWithBos = BlockKeys.keys(with.encode(prompt), 16, BlockKeys.PLAIN_ROOT);
            long[] engineWithoutBos = BlockKeys.keys(without.encode(prompt), 16, BlockKeys.PLAIN_ROOT);

            // 33 tokens with the BOS: still 2 full blocks, but every one differs from the BOS-less chain
            assertThat(engineWithoutBos).hasSize(2);
            assertThat(engineWithBos).hasSize(2);
            assertThat(engineWithBos[0]).isNotEqualTo(engineWithoutBos[0]);
            assertThat(engineWithBos[1]).isNotEqualTo(engineWithoutBos[1]);
        }
    }

    @Test
    void neverTruncatesLongPrompts() throws IOException {
        String longText = IntStream.range(0, 3_000).mapToObj(i -> "hello").collect(Collectors.joining(" "));
        try (HfTokenizer t = new HfTokenizer(tokenizerJson, false)) {
            assertThat(t.encode(longText)).hasSize(3_000).containsOnly(40);
        }
    }

    @Test
    void tokensChainToTheBlockKeyVectors() throws IOException {
        String prompt = IntStream.rangeClosed(1, 36).mapToObj(i -> i <= 32 ? "w" + i : "hello")
                .collect(Collectors.joining(" "));
        try (HfTokenizer t = new HfTokenizer(tokenizerJson, false)) {
            int[] tokens = t.encode(prompt);

            // 36 tokens = 2 full blocks of 16 (the 4 trailing tokens have no key): the "plain-16" vector of
            // policies/src/test/resources/vectors/block-keys.txt, tokens 1..32
            long[] keys = BlockKeys.keys(tokens, 16, BlockKeys.PLAIN_ROOT);

            assertThat(keys).containsExactly(578328606817632042L, Long.parseUnsignedLong("18164843524888083662"));
            assertThat(BlockKeys.keys(tokens, 8, BlockKeys.PLAIN_ROOT)).hasSize(4);
        }
    }

    @Test
    void aMissingFileFailsWithItsPath() {
        Path missing = dir.resolve("nope.json");
        assertThatThrownBy(() -> new HfTokenizer(missing)).isInstanceOf(IOException.class)
                .hasMessage("tokenizer file not found: " + missing);
    }
}
