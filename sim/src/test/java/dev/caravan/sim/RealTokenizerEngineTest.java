package dev.caravan.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An engine started with {@code --tokenizer} on a real Hugging Face tokenizer.json (written here: a WordLevel model
 * whose post-processor prepends BOS id 1, as Llama's does) and its tokenizer_config.json chat template.
 */
class RealTokenizerEngineTest {

    @TempDir
    static Path dir;
    private static SimEngine engine;

    static Path writeModel(Path into, boolean withTemplate) throws IOException {
        System.setProperty("ENGINE_CACHE_DIR", into.resolve("djl-cache").toString());
        Files.createDirectories(into);
        Files.writeString(into.resolve("tokenizer.json"), """
                {"version": "1.0", "truncation": null, "padding": null,
                 "added_tokens": [
                   {"id": 0, "content": "[UNK]", "single_word": false, "lstrip": false, "rstrip": false,
                    "normalized": false, "special": true},
                   {"id": 1, "content": "<s>", "single_word": false, "lstrip": false, "rstrip": false,
                    "normalized": false, "special": true}],
                 "normalizer": null, "pre_tokenizer": {"type": "Whitespace"},
                 "post_processor": {"type": "TemplateProcessing",
                   "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
                   "pair": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                            {"Sequence": {"id": "B", "type_id": 1}}],
                   "special_tokens": {"<s>": {"id": "<s>", "ids": [1], "tokens": ["<s>"]}}},
                 "decoder": null,
                 "model": {"type": "WordLevel", "unk_token": "[UNK]", "vocab": {"[UNK]": 0, "<s>": 1, "hello": 10,
                   "world": 11, "user": 12, "assistant": 13, ":": 14, "the": 20, "and": 21, "map": 22}}}
                """);
        if (withTemplate) {
            Files.writeString(into.resolve("tokenizer_config.json"), """
                    {"bos_token": "<s>", "chat_template": "{{ bos_token }}{% for m in messages %}{{ m['role'] }} : \
                    {{ m['content'] }} {% endfor %}{% if add_generation_prompt %}assistant :{% endif %}"}
                    """);
        }
        return into;
    }

    @BeforeAll
    static void start() throws IOException {
        engine = SimEngine.start(SimConfig.builder().timeScale(100).tokenizer(writeModel(dir.resolve("m"), true))
                .build());
    }

    @AfterAll
    static void stop() {
        engine.close();
    }

    @SuppressWarnings("unchecked")
    private static List<Integer> tokenize(Map<String, Object> body) {
        HttpResponse<String> r = Http.post(engine.url() + "/tokenize", body);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return (List<Integer>) Http.map(r.body()).get("tokens");
    }

    @Test
    void completionsAreEncodedWithTheTokenizersSpecialTokens() {
        assertThat(tokenize(Map.of("prompt", "hello world nope"))).containsExactly(1, 10, 11, 0);
        assertThat(tokenize(Map.of("prompt", "hello world", "add_special_tokens", false))).containsExactly(10, 11);
        HttpResponse<String> r = Http.post(engine.url() + "/v1/completions", Map.of("prompt", "hello world",
                "max_tokens", 3));
        assertThat(Http.<Integer>at(Http.map(r.body()), "usage", "prompt_tokens")).isEqualTo(3);
        assertThat(Http.<String>at(Http.map(r.body()), "choices", 0, "text")).matches("(the|and|map){3}");
    }

    @Test
    void chatIsRenderedWithTheModelsTemplateAndEncodedWithoutAddingSpecialTokens() {
        Map<String, Object> chat = Map.of("messages", List.of(Map.of("role", "user", "content", "hello")));
        assertThat(tokenize(chat)).containsExactly(1, 12, 14, 10, 13, 14);
        HttpResponse<String> r = Http.post(engine.url() + "/v1/chat/completions", Map.of("messages",
                List.of(Map.of("role", "user", "content", "hello")), "max_tokens", 1));
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(Http.<Integer>at(Http.map(r.body()), "usage", "prompt_tokens")).isEqualTo(6);
        assertThat(Http.get(engine.url() + "/get_server_info").body()).contains("tokenizer_config.json");
    }

    @Test
    void aModelWithoutAChatTemplateRefusesChatAsVllmDoes() throws IOException {
        try (SimEngine bare = SimEngine.start(SimConfig.builder().tokenizer(writeModel(dir.resolve("bare"), false))
                .build())) {
            HttpResponse<String> r = Http.post(bare.url() + "/v1/chat/completions", Map.of("messages",
                    List.of(Map.of("role", "user", "content", "hello"))));
            assertThat(r.statusCode()).isEqualTo(400);
            assertThat(r.body()).contains("default chat template is no longer allowed");
        }
    }

    @Test
    void aMissingTokenizerFailsTheStartNamingTheFile() {
        assertThatThrownBy(() -> SimEngine.start(SimConfig.builder().tokenizer(dir.resolve("none/tokenizer.json"))
                .build())).hasMessageContaining("cannot load tokenizer").hasMessageContaining("none/tokenizer.json");
    }
}
