package dev.caravan.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.caravan.policies.text.ChatTemplate;
import dev.caravan.tokens.HfTokenizer;
import dev.caravan.sim.text.ModelText;

/**
 * The demo model both sides load: the simulator's tokenizer (DJL) and the gateway's ({@link HfTokenizer}, DJL too)
 * produce the ids Hugging Face's JavaScript tokenizer produced for the same file
 * ({@code sim/src/test/python/derive_demo_tokens.mjs} wrote {@code vectors/demo-model-tokens.json}), and the model's
 * chat template renders the gateway's chat routing text.
 */
class DemoModelTest {

    private static Path dir;
    private static ModelText engine;
    private static HfTokenizer gateway;
    private static JsonNode vectors;

    @BeforeAll
    static void load() throws IOException {
        dir = DemoModel.extract();
        System.setProperty("ENGINE_CACHE_DIR", dir.resolve("djl-cache").toString());
        engine = ModelText.load(dir, null);
        gateway = new HfTokenizer(dir.resolve("tokenizer.json"));
        try (InputStream in = DemoModelTest.class.getResourceAsStream("/vectors/demo-model-tokens.json")) {
            vectors = new ObjectMapper().readTree(in);
        }
    }

    @AfterAll
    static void close() {
        engine.close();
        gateway.close();
    }

    private static int[] ids(JsonNode c) {
        int[] out = new int[c.path("ids").size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = c.path("ids").get(i).asInt();
        }
        return out;
    }

    @Test
    void bothSidesTokenizeAsHuggingFacesOwnTokenizer() {
        assertThat(vectors.path("cases").size()).isGreaterThanOrEqualTo(10);
        for (JsonNode c : vectors.path("cases")) {
            String text = c.path("text").asText();
            boolean special = c.path("add_special_tokens").asBoolean();
            assertThat(engine.tokenizer().encode(text, special)).as(c.path("source").asText()).containsExactly(ids(c));
            assertThat(gateway.encode(text)).as("gateway " + c.path("source").asText()).containsExactly(ids(c));
        }
    }

    @Test
    void theModelsChatTemplateRendersTheGatewaysChatRoutingText() {
        List<Map<String, Object>> messages = List.of(Map.of("role", "system", "content", "Be brief."),
                Map.of("role", "user", "content", List.of(Map.of("type", "text", "text", "Look:"),
                        Map.of("type", "image_url", "image_url", Map.of("url", "x")))),
                Map.of("role", "assistant", "content", "", "tool_calls", List.of(Map.of("id", "c1", "type",
                        "function", "function", Map.of("name", "f", "arguments", "{\"a\":1}")))),
                Map.of("role", "tool", "tool_call_id", "c1", "content", "done"));
        List<Object> tools = List.of(Map.of("type", "function", "function", Map.of("name", "f")));
        assertThat(engine.chatTemplate().render(messages, tools, true, Map.of()))
                .isEqualTo(ChatTemplate.render(messages, tools));
        assertThat(engine.chatTemplate().render(messages, null, true, Map.of()))
                .isEqualTo(ChatTemplate.render(messages, null));
    }

    @Test
    void theFilesAreSmallEnoughToShip() {
        assertThat(dir.resolve("tokenizer.json").toFile().length()).isLessThan(3L << 20);
    }
}
