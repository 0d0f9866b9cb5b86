package dev.caravan.policies.text;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class ChatTemplateTest {

    private static Map<String, Object> msg(String role, Object content) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("role", role);
        m.put("content", content);
        return m;
    }

    @Test
    void rendersToolsThenMessagesThenTheGenerationPrompt() {
        Map<String, Object> fn = new LinkedHashMap<>();
        fn.put("type", "function");
        fn.put("function", Map.of("name", "lookup"));
        String text = ChatTemplate.render(List.of(msg("system", "be brief"), msg("user", "hi")), List.of(fn));
        assertThat(text).isEqualTo("<|tools|>\n[{\"type\":\"function\",\"function\":{\"name\":\"lookup\"}}]\n"
                + "<|system|>\nbe brief\n<|user|>\nhi\n<|assistant|>\n");
    }

    @Test
    void rendersToolCallsAndToolResults() {
        Map<String, Object> assistant = msg("assistant", null);
        assistant.put("tool_calls", List.of(Map.of("id", "c1")));
        Map<String, Object> tool = msg("tool", "42");
        tool.put("tool_call_id", "c1");
        String text = ChatTemplate.render(List.of(msg("user", "q"), assistant, tool), null);
        assertThat(text).isEqualTo("<|user|>\nq\n<|assistant|>\n\n<|tool_calls|>[{\"id\":\"c1\"}]\n"
                + "<|tool|>\n[c1] 42\n<|assistant|>\n");
    }

    @Test
    void earlierTurnIsAPrefixOfTheGrownConversation() {
        String turn1 = ChatTemplate.render(List.of(msg("system", "s"), msg("user", "q1")), null);
        String turn2 = ChatTemplate.render(List.of(msg("system", "s"), msg("user", "q1"), msg("assistant", "a1"),
                msg("user", "q2")), null);
        assertThat(turn2).startsWith(turn1);
    }

    @Test
    void joinsTextPartsAndMarksOtherParts() {
        String text = ChatTemplate.render(List.of(msg("user", List.of(Map.of("type", "text", "text", "look"),
                Map.of("type", "image_url", "image_url", Map.of("url", "u"))))), null);
        assertThat(text).isEqualTo("<|user|>\nlook\n<|image_url|>\n<|assistant|>\n");
    }

    @Test
    void rejectsAMessageWithoutRole() {
        assertThatThrownBy(() -> ChatTemplate.render(List.of(Map.of("content", "x")), null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("messages[0].role must be a non-empty string");
    }
}
