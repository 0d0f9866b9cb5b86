package dev.caravan.sim.text;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * An engine loading Qwen3's files from {@code models/qwen3} ({@link ModelText#load}) produces the prompt tokens vLLM
 * would: its chat template renders each conversation as Python's jinja2 did ({@code vectors/chat-templates.json}) and
 * its tokenizer encodes the render as Hugging Face's JavaScript tokenizer did ({@code vectors/qwen3-tokens.json},
 * derived by {@code sim/src/test/python/derive_qwen3_tokens.mjs}).
 */
class Qwen3ModelTextTest {

    private static final Path QWEN3 = Path.of("../models/qwen3");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static ModelText model;

    @BeforeAll
    static void load() throws IOException {
        model = ModelText.load(QWEN3, null);
    }

    @AfterAll
    static void close() {
        model.close();
    }

    private static Map<String, Object> resource(String name) throws IOException {
        try (InputStream in = Qwen3ModelTextTest.class.getResourceAsStream("/vectors/" + name)) {
            return JSON.readValue(in, new TypeReference<Map<String, Object>>() { });
        }
    }

    @SuppressWarnings("unchecked")
    static Stream<Map<String, Object>> tokenCases() throws IOException {
        List<Map<String, Object>> chats = (List<Map<String, Object>>) resource("chat-templates.json").get("cases");
        return ((List<Map<String, Object>>) resource("qwen3-tokens.json").get("cases")).stream().peek(c -> {
            if (c.get("chat_case") instanceof Integer i) {
                c.put("chat", chats.get(i));
            }
        });
    }

    @Test
    @SuppressWarnings("unchecked")
    void theVectorsRenderTheTemplateOfTheModelFiles() throws IOException {
        Map<String, String> templates = (Map<String, String>) resource("chat-templates.json").get("templates");
        String shipped = JSON.readTree(QWEN3.resolve("tokenizer_config.json").toFile()).get("chat_template").asText();
        assertThat(templates.get("qwen3")).isEqualTo(shipped);
        assertThat(model.chatTemplate().name()).endsWith("tokenizer_config.json");
    }

    @SuppressWarnings("unchecked")
    @ParameterizedTest(name = "{index}: {0}")
    @MethodSource("tokenCases")
    void encodesAsHuggingFacesTokenizerDoes(Map<String, Object> c) {
        List<Integer> expected = (List<Integer>) c.get("ids");
        String text = (String) c.get("text");
        if (c.get("chat") instanceof Map<?, ?> chat) {
            text = model.chatTemplate().render((List<?>) chat.get("messages"), (List<?>) chat.get("tools"),
                    (Boolean) chat.get("add_generation_prompt"), (Map<String, Object>) chat.get("kwargs"));
            assertThat(text).isEqualTo(c.get("text"));
        }
        int[] ids = model.tokenizer().encode(text, (Boolean) c.get("add_special_tokens"));
        assertThat(ids).as(text).containsExactly(expected.stream().mapToInt(Integer::intValue).toArray());
    }
}
