package dev.caravan.tokens;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Token identity on named real templates: for every case of {@code vectors/prompt-tokens.json} — Qwen3's template and
 * tokenizer (tools, tool round trips, multi-turn, reasoning, {@code enable_thinking} false/true,
 * {@code add_generation_prompt}, {@code continue_final_message}), Mistral NeMo's (a template that emits the BOS its
 * tokenizer also adds: chat gets one; tools, tool calls and results), and a Llama-3-style tool-calling override
 * template on Mistral NeMo's tokenizer (OpenAI content parts, {@code chat_template_kwargs}) — the gateway's rendering
 * equals the one
 * Python's jinja2 produced with transformers' settings and vLLM's message preprocessing, and its token ids equal those
 * Hugging Face's JavaScript tokenizer gave (derive_prompt_vectors.py, tokenize_prompt_vectors.mjs; docs/tokens.md).
 */
class PromptVectorsTest {

    static final Path RESOURCES = Path.of("src/test/resources");
    /** The vectors name model files relative to the repository root (models/...). */
    static final Path ROOT = Path.of("..");
    static final Clock CLOCK = Clock.fixed(Instant.parse("2026-03-05T12:00:00Z"), ZoneOffset.UTC);
    static final Map<String, LocalModel> MODELS = new HashMap<>();
    static Map<String, Object> vectors;

    @BeforeAll
    static void load() throws IOException {
        System.setProperty("ENGINE_CACHE_DIR", Path.of("target/djl-cache").toAbsolutePath().toString());
        vectors = new ObjectMapper().readValue(RESOURCES.resolve("vectors/prompt-tokens.json").toFile(),
                new TypeReference<>() {
                });
    }

    @AfterAll
    static void close() {
        MODELS.values().forEach(LocalModel::close);
        MODELS.clear();
    }

    static LocalModel model(String name) throws IOException {
        LocalModel m = MODELS.get(name);
        if (m == null) {
            @SuppressWarnings("unchecked")
            Map<String, Object> spec = (Map<String, Object>) ((Map<String, Object>) vectors.get("models")).get(name);
            Object template = spec.get("chat_template");
            m = LocalModel.load(new ModelFiles(name, ROOT.resolve((String) spec.get("dir")), null,
                    template == null ? null : ROOT.resolve((String) template)), null, EngineDialect.VLLM, CLOCK);
            MODELS.put(name, m);
        }
        return m;
    }

    @SuppressWarnings("unchecked")
    static Stream<Arguments> cases() throws IOException {
        load();
        List<Arguments> out = new ArrayList<>();
        for (Object c : (List<Object>) vectors.get("cases")) {
            Map<String, Object> v = (Map<String, Object>) c;
            out.add(Arguments.of(v.get("model") + "/" + v.get("name"), v));
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    @SuppressWarnings("unchecked")
    void rendersAndTokenizesAsTheEngine(String name, Map<String, Object> v) throws IOException {
        LocalModel model = model((String) v.get("model"));
        Map<String, Object> request = new ObjectMapper().readValue((String) v.get("body"), new TypeReference<>() {
        });
        int[] expected = ((List<Integer>) v.get("ids")).stream().mapToInt(Integer::intValue).toArray();
        if ("chat".equals(v.get("kind"))) {
            assertThat(model.render(request)).isEqualTo(v.get("rendered"));
            assertThat(model.chat(request)).containsExactly(expected);
        } else {
            assertThat(model.completion((String) request.get("prompt"))).containsExactly(expected);
        }
    }

    @org.junit.jupiter.api.Test
    @SuppressWarnings("unchecked")
    void rendersTheSameFromManyThreadsAtOnce() throws Exception {
        LocalModel model = model("qwen3");
        List<Map<String, Object>> cases = new ArrayList<>();
        for (Object c : (List<Object>) vectors.get("cases")) {
            Map<String, Object> v = (Map<String, Object>) c;
            if ("qwen3".equals(v.get("model")) && "chat".equals(v.get("kind"))) {
                cases.add(v);
            }
        }
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(4);
        try {
            List<java.util.concurrent.Future<Integer>> results = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int offset = t;
                results.add(pool.submit(() -> {
                    int checked = 0;
                    for (int i = 0; i < 20; i++) {
                        Map<String, Object> v = cases.get((i + offset) % cases.size());
                        Map<String, Object> body = new ObjectMapper().readValue((String) v.get("body"),
                                new TypeReference<>() {
                                });
                        assertThat(model.render(body)).isEqualTo(v.get("rendered"));
                        checked++;
                    }
                    return checked;
                }));
            }
            for (java.util.concurrent.Future<Integer> f : results) {
                assertThat(f.get(60, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo(20);
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
