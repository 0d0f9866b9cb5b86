package dev.caravan.tokens;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/** The engines' chat preprocessing; vLLM's is also proven by the vectors (PromptVectorsTest). */
class ChatInputsTest {

    static Map<String, Object> body(String json) throws Exception {
        return new ObjectMapper().readValue(json, new TypeReference<>() {
        });
    }

    static final String TOOLS = "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"tools\":["
            + "{\"type\":\"function\",\"function\":{\"parameters\":{},\"name\":\"a\"}},"
            + "{\"type\":\"function\",\"function\":{\"name\":\"b\",\"description\":\"B\"}}]";

    @Test
    void vllmDumpsToolsWithDeclaredFieldsFirstAndNullsForAbsentOnes() throws Exception {
        ChatInputs in = ChatInputs.of(body(TOOLS + "}"), ContentFormat.STRING, EngineDialect.VLLM);
        assertThat(new ObjectMapper().writeValueAsString(in.tools())).isEqualTo("[{\"type\":\"function\","
                + "\"function\":{\"name\":\"a\",\"description\":null,\"parameters\":{}}},{\"type\":\"function\","
                + "\"function\":{\"name\":\"b\",\"description\":\"B\",\"parameters\":null}}]");
    }

    @Test
    void sglangPassesFunctionsOnlyFilteredByToolChoice() throws Exception {
        ChatInputs all = ChatInputs.of(body(TOOLS + "}"), ContentFormat.STRING, EngineDialect.SGLANG);
        assertThat(all.tools()).extracting(t -> (Object) ((Map<?, ?>) t).get("name")).containsExactly("a", "b");
        ChatInputs named = ChatInputs.of(body(TOOLS + ",\"tool_choice\":{\"type\":\"function\",\"function\":"
                + "{\"name\":\"b\"}}}"), ContentFormat.STRING, EngineDialect.SGLANG);
        assertThat(named.tools()).extracting(t -> (Object) ((Map<?, ?>) t).get("name")).containsExactly("b");
        assertThat(ChatInputs.of(body(TOOLS + ",\"tool_choice\":\"none\"}"), ContentFormat.STRING,
                EngineDialect.SGLANG).tools()).isNull();
    }

    @Test
    void givesOpenAiTemplatesTextPartsAndKeepsToolResultsAsStrings() throws Exception {
        ChatInputs in = ChatInputs.of(body("{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"},"
                + "{\"role\":\"tool\",\"tool_call_id\":\"c\",\"content\":[{\"type\":\"text\",\"text\":\"x\"},"
                + "{\"type\":\"text\",\"text\":\"y\"}]}]}"), ContentFormat.OPENAI, EngineDialect.VLLM);
        assertThat(in.messages().get(0).get("content")).isEqualTo(List.of(Map.of("type", "text", "text", "hi")));
        assertThat(in.messages().get(1)).containsEntry("content", "x\ny").containsEntry("tool_call_id", "c");
    }

    @Test
    void parsesToolCallArgumentsAndDropsAnEmptyToolCallList() throws Exception {
        ChatInputs in = ChatInputs.of(body("{\"messages\":[{\"role\":\"assistant\",\"content\":null,\"tool_calls\":"
                + "[{\"function\":{\"name\":\"f\",\"arguments\":\"{\\\"a\\\": 1}\"}},{\"function\":{\"name\":\"g\","
                + "\"arguments\":\"not json\"}}]},{\"role\":\"assistant\",\"content\":\"ok\",\"tool_calls\":[]}]}"),
                ContentFormat.STRING, EngineDialect.VLLM);
        List<?> calls = (List<?>) in.messages().get(0).get("tool_calls");
        assertThat(((Map<?, ?>) ((Map<?, ?>) calls.get(0)).get("function")).get("arguments")).isEqualTo(Map.of("a", 1));
        assertThat(((Map<?, ?>) ((Map<?, ?>) calls.get(1)).get("function")).get("arguments")).isEqualTo(Map.of());
        assertThat(in.messages().get(0)).containsEntry("content", "");
        assertThat(in.messages().get(1)).doesNotContainKey("tool_calls");
    }

    @Test
    void rejectsAMessageWithoutRole() {
        assertThatThrownBy(() -> ChatInputs.of(body("{\"messages\":[{\"content\":\"x\"}]}"), ContentFormat.STRING,
                EngineDialect.VLLM)).hasMessage("messages[0].role must be a non-empty string");
    }
}
