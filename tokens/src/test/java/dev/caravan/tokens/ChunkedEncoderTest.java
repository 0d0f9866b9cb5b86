package dev.caravan.tokens;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;


/**
 * Encoding in chunks gives exactly the ids of encoding whole, on the committed real tokenizers: every chat rendering of
 * the independent vectors (vectors/prompt-tokens.json) against its committed ids, cold and again from the cache; and
 * texts built to stress the cuts (newlines before spaces, slashes, punctuation, digits, letters and non-ASCII, runs of
 * whitespace, added tokens glued to text) against the whole encode, on Mistral NeMo's and Qwen3's tokenizers and on
 * Qwen3's vocabulary under Llama 3's pre-tokenizer regex.
 */
class ChunkedEncoderTest {

    static final Path MODELS = Path.of("../models");
    static final ObjectMapper JSON = new ObjectMapper();
    static final List<HfTokenizer> OPEN = new ArrayList<>();

    @TempDir
    static Path tmp;

    @BeforeAll
    static void cache() {
        System.setProperty("ENGINE_CACHE_DIR", Path.of("target/djl-cache").toAbsolutePath().toString());
    }

    @AfterAll
    static void close() {
        OPEN.forEach(HfTokenizer::close);
    }

    static Path llama3Regex() throws IOException {
        ObjectNode t = (ObjectNode) JSON.readTree(MODELS.resolve("qwen3/tokenizer.json").toFile());
        ObjectNode split = (ObjectNode) t.path("pre_tokenizer").path("pretokenizers").get(0);
        ((ObjectNode) split.path("pattern")).put("Regex", "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|"
                + "\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+");
        Path file = tmp.resolve("llama3-regex-tokenizer.json");
        JSON.writeValue(file.toFile(), t);
        return file;
    }

    record Setup(String name, HfTokenizer tokenizer, TokenChunker chunker) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Setup setup(String name, Path json) throws IOException {
        HfTokenizer tokenizer = new HfTokenizer(json, false);
        OPEN.add(tokenizer);
        return new Setup(name, tokenizer, TokenChunker.of(JSON.readTree(json.toFile())));
    }

    static Stream<Arguments> tokenizers() throws IOException {
        cache();
        return Stream.of(Arguments.of(setup("mistral_nemo", MODELS.resolve("mistral_nemo/tokenizer.json"))),
                Arguments.of(setup("qwen3", MODELS.resolve("qwen3/tokenizer.json"))),
                Arguments.of(setup("qwen3-vocab-llama3-regex", llama3Regex())));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("tokenizers")
    void cutsAtAddedTokensAndLineStartsOfThePretokenizersItKnows(Setup s) {
        assertThat(s.chunker().describe()).isEqualTo("added tokens and line starts");
        String special = s.name().equals("mistral_nemo") ? "[INST]" : "<|im_start|>";
        List<String> texts = s.chunker().split("a\nb" + special + "c\n d\n/e\n\nf").stream()
                .map(TokenChunker.Piece::text).toList();
        assertThat(texts).containsExactly("a\n", "b", special, "c\n d\n/e\n\n", "f");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("tokenizers")
    void encodesStressTextsInChunksExactlyAsWhole(Setup s) {
        String[] specials = s.name().equals("mistral_nemo")
                ? new String[] {"<s>", "</s>", "[INST]", "[/INST]", "[TOOL_CALLS]", "[AVAILABLE_TOOLS]"}
                : new String[] {"<|im_start|>", "<|im_end|>", "<think>", "</think>", "<tool_call>", "<|endoftext|>"};
        String[] atoms = {"\n", "\n\n", " \n", "\t\n", "\r\n", "\n ", "  ", " ", "/", "//", ".", "!?", "'s", "'LL",
            "word", "Word", "WORD", "Über", "naïve", "é", "e\u0301", "日本語", "12345", "3.14", "_x", "#", "{\"a\": 1}",
            "-", "—", "🙂", "ǅ", "\u00a0", "\u2028", ":\n", ".\n", "\n-", "\n\t", "\n1", "\nQ", "\n<", "\n[", "\n'"};
        SplittableRandom random = new SplittableRandom(14);
        TokenChunkCache cache = new TokenChunkCache(1 << 20);
        ChunkedEncoder chunked = new ChunkedEncoder(s.chunker(), cache, t -> s.tokenizer().encode(t, false));
        int cuts = 0;
        for (int n = 0; n < 3000; n++) {
            StringBuilder text = new StringBuilder();
            for (int k = random.nextInt(1, 14); k > 0; k--) {
                int pick = random.nextInt(atoms.length + specials.length / 2);
                text.append(pick < atoms.length ? atoms[pick] : specials[random.nextInt(specials.length)]);
            }
            String t = text.toString();
            cuts += s.chunker().split(t).size() - 1;
            assertThat(chunked.encode(t)).as("%s: %s", s.name(), JSON.valueToTree(t))
                    .containsExactly(s.tokenizer().encode(t, false));
        }
        assertThat(cuts).isGreaterThan(5_000);
        assertThat(cache.hits()).isGreaterThan(1_000);
    }

    @SuppressWarnings("unchecked")
    @Test
    void encodesEveryVectorRenderingInChunksAsTheIndependentIds() throws IOException {
        Map<String, Object> vectors = JSON.readValue(Path.of("src/test/resources/vectors/prompt-tokens.json").toFile(),
                new TypeReference<>() {
                });
        Map<String, Object> models = (Map<String, Object>) vectors.get("models");
        TokenChunkCache cache = new TokenChunkCache(1 << 20);
        Map<String, ChunkedEncoder> encoders = new java.util.HashMap<>();
        int checked = 0;
        for (int pass = 0; pass < 2; pass++) {
            for (Object c : (List<Object>) vectors.get("cases")) {
                Map<String, Object> v = (Map<String, Object>) c;
                if (!"chat".equals(v.get("kind"))) {
                    continue;
                }
                String dir = (String) ((Map<String, Object>) models.get(v.get("model"))).get("dir");
                ChunkedEncoder encoder = encoders.computeIfAbsent(dir, d -> {
                    try {
                        Setup s = setup(d, Path.of("..").resolve(d).resolve("tokenizer.json"));
                        return new ChunkedEncoder(s.chunker(), cache, t -> s.tokenizer().encode(t, false));
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                });
                int[] expected = ((List<Integer>) v.get("ids")).stream().mapToInt(Integer::intValue).toArray();
                assertThat(encoder.encode((String) v.get("rendered"))).as("%s/%s pass %d", v.get("model"),
                        v.get("name"), pass).containsExactly(expected);
                checked++;
            }
        }
        assertThat(checked).isEqualTo(2 * 28);
        assertThat(cache.hits()).isGreaterThan(cache.misses());
    }

    @Test
    void refusesToCutForATokenizerWhosePretokenizerItDoesNotKnow() throws IOException {
        ObjectNode t = (ObjectNode) JSON.readTree(MODELS.resolve("qwen3/tokenizer.json").toFile());
        ((ObjectNode) t.path("pre_tokenizer").path("pretokenizers").get(1)).put("add_prefix_space", true);
        assertThat(TokenChunker.of(t).split("<|im_start|>a\nb").stream().map(TokenChunker.Piece::text))
                .containsExactly("<|im_start|>a\nb");
        ObjectNode split = (ObjectNode) JSON.readTree(MODELS.resolve("qwen3/tokenizer.json").toFile());
        ((ObjectNode) split.path("pre_tokenizer").path("pretokenizers").get(0).path("pattern")).put("Regex", "\\s+");
        assertThat(TokenChunker.of(split).describe()).isEqualTo("added tokens only");
        assertThat(TokenChunker.of(split).split("<|im_start|>a\nb").stream().map(TokenChunker.Piece::text))
                .containsExactly("<|im_start|>", "a\nb");
    }
}
