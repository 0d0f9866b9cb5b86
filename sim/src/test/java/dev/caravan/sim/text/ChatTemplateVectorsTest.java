package dev.caravan.sim.text;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Jinjava, set up as {@link JinjaChatTemplate} does, renders exactly what Python's jinja2 renders in transformers'
 * environment ({@code sim/src/test/python/derive_chat_template_vectors.py} wrote {@code vectors/chat-templates.json}):
 * the demo model's template, Qwen3's own (models/qwen3: tools, {@code enable_thinking}, reasoning kept only after the
 * last user query), Llama-3-style and Qwen-style templates with tools, multi-turn, tool calls,
 * {@code add_generation_prompt} and {@code enable_thinking}, Python's string methods and slices with a step.
 */
class ChatTemplateVectorsTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @SuppressWarnings("unchecked")
    static Stream<Map<String, Object>> cases() throws IOException {
        Map<String, Object> root = vectors();
        Map<String, String> templates = (Map<String, String>) root.get("templates");
        Map<String, String> special = (Map<String, String>) root.get("special_tokens");
        return ((List<Map<String, Object>>) root.get("cases")).stream().peek(c -> {
            c.put("source", templates.get((String) c.get("template")));
            c.put("special", special);
        });
    }

    private static Map<String, Object> vectors() throws IOException {
        try (InputStream in = ChatTemplateVectorsTest.class.getResourceAsStream("/vectors/chat-templates.json")) {
            return JSON.readValue(in, new TypeReference<Map<String, Object>>() { });
        }
    }

    @SuppressWarnings("unchecked")
    @ParameterizedTest(name = "{index}: {0}")
    @MethodSource("cases")
    void rendersAsTransformersDoes(Map<String, Object> c) {
        JinjaChatTemplate t = new JinjaChatTemplate((String) c.get("source"), (Map<String, String>) c.get("special"),
                (String) c.get("template"));
        String rendered = t.render((List<?>) c.get("messages"), (List<?>) c.get("tools"),
                (Boolean) c.get("add_generation_prompt"), (Map<String, Object>) c.get("kwargs"));
        assertThat(rendered).as("%s / %s", c.get("template"), c.get("conversation")).isEqualTo(c.get("rendered"));
    }

    @Test
    void raiseExceptionFailsTheRenderWithTheTemplatesMessage() {
        JinjaChatTemplate t = new JinjaChatTemplate(
                "{% if messages[0]['role'] != 'user' %}{{ raise_exception('first message must be user') }}{% endif %}x",
                Map.of(), "t");
        assertThatThrownBy(() -> t.render(List.of(Map.of("role", "assistant", "content", "a")), null, true, Map.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("first message must be user");
    }

    @Test
    void theDefaultFormatEqualsTheDemoTemplatesRendering() throws IOException {
        DefaultChatTemplate builtIn = new DefaultChatTemplate();
        cases().filter(c -> c.get("template").equals("demo")).forEach(c -> assertThat(builtIn.render(
                (List<?>) c.get("messages"), (List<?>) c.get("tools"), (Boolean) c.get("add_generation_prompt"),
                Map.of())).isEqualTo(c.get("rendered")));
    }
}
