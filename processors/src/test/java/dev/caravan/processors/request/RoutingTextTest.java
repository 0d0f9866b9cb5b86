package dev.caravan.processors.request;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.caravan.policies.text.ChatTemplate;
import dev.caravan.processors.error.GatewayError;
import dev.caravan.processors.error.GatewayException;

class RoutingTextTest {

    private static Map<String, Object> body(Object... kv) {
        java.util.LinkedHashMap<String, Object> m = new java.util.LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }

    @Test
    void chatTextIsTheWholeConversationRenderedWithTools() {
        List<Object> messages = List.of(
                Map.of("role", "system", "content", "be brief"),
                Map.of("role", "user", "content", "weather?"),
                Map.of("role", "assistant", "content", "", "tool_calls",
                        List.of(Map.of("id", "c1", "function", Map.of("name", "wx")))),
                Map.of("role", "tool", "tool_call_id", "c1", "content", "sunny"));
        List<Object> tools = List.of(Map.of("type", "function", "function", Map.of("name", "wx")));

        String text = RoutingText.extract(RequestKind.CHAT, body("messages", messages, "tools", tools));

        assertThat(text).isEqualTo(ChatTemplate.render(messages, tools));
        assertThat(text).startsWith("<|tools|>").contains("be brief").contains("<|tool_calls|>").contains("[c1] sunny");
    }

    @Test
    void chatTextOfATurnIsAPrefixOfTheNextTurn() {
        List<Object> turn1 = List.of(Map.of("role", "user", "content", "hello"));
        List<Object> turn2 = List.of(Map.of("role", "user", "content", "hello"),
                Map.of("role", "assistant", "content", "hi!"), Map.of("role", "user", "content", "more"));
        String t1 = RoutingText.extract(RequestKind.CHAT, body("messages", turn1));
        String t2 = RoutingText.extract(RequestKind.CHAT, body("messages", turn2));
        assertThat(t2).startsWith(t1.substring(0, t1.length() - ChatTemplate.GENERATION_PROMPT.length()));
    }

    @Test
    void completionsPromptStringIsTakenAsIs() {
        assertThat(RoutingText.extract(RequestKind.COMPLETIONS, body("prompt", "once upon"))).isEqualTo("once upon");
    }

    @Test
    void completionsPromptArrayIsJoinedWithSpaces() {
        assertThat(RoutingText.extract(RequestKind.COMPLETIONS, body("prompt", List.of("a b", "c"))))
                .isEqualTo("a b c");
    }

    @Test
    void tokenIdsRenderAsDecimalsJoinedWithSpaces() {
        assertThat(RoutingText.extract(RequestKind.COMPLETIONS, body("prompt", List.of(1, 22, 333))))
                .isEqualTo("1 22 333");
        assertThat(RoutingText.extract(RequestKind.GENERATE, body("input_ids", List.of(List.of(1, 2), List.of(3)))))
                .isEqualTo("1 2 3");
    }

    @Test
    void generateUsesTextBeforeInputIds() {
        assertThat(RoutingText.extract(RequestKind.GENERATE, body("text", "hi", "input_ids", List.of(1))))
                .isEqualTo("hi");
        assertThat(RoutingText.extract(RequestKind.GENERATE, body("text", List.of("x", "y")))).isEqualTo("x y");
    }

    @Test
    void generateWithOnlyInputEmbedsHasNoRoutingText() {
        assertThat(RoutingText.extract(RequestKind.GENERATE, body("input_embeds", List.of(List.of(0.5, -0.25)))))
                .isEmpty();
    }

    @Test
    void embeddingsInputFollowsThePromptRules() {
        assertThat(RoutingText.extract(RequestKind.EMBEDDINGS, body("input", List.of("p", "q")))).isEqualTo("p q");
    }

    @Test
    void rejectsChatWithoutMessages() {
        assertInvalid(RequestKind.CHAT, body("model", "m"), "messages must be a non-empty array");
        assertInvalid(RequestKind.CHAT, body("messages", "hello"), "messages must be a non-empty array");
    }

    @Test
    void rejectsMessageWithoutRole() {
        assertInvalid(RequestKind.CHAT, body("messages", List.of(Map.of("content", "x"))),
                "messages[0].role must be a non-empty string");
    }

    @Test
    void rejectsToolsThatAreNotAnArray() {
        assertInvalid(RequestKind.CHAT, body("messages", List.of(Map.of("role", "user", "content", "x")),
                "tools", "wx"), "tools must be an array");
    }

    @Test
    void rejectsNumericPrompt() {
        assertInvalid(RequestKind.COMPLETIONS, body("prompt", 42), "prompt must be a string or an array");
    }

    @Test
    void rejectsMixedPromptArray() {
        assertInvalid(RequestKind.COMPLETIONS, body("prompt", List.of("a", 1)),
                "prompt[1] must be a string like the other elements");
    }

    @Test
    void rejectsMissingPrompt() {
        assertInvalid(RequestKind.COMPLETIONS, body(), "prompt is required");
        assertInvalid(RequestKind.EMBEDDINGS, body(), "input is required");
    }

    @Test
    void rejectsGenerateWithoutInput() {
        assertInvalid(RequestKind.GENERATE, body("sampling_params", Map.of()),
                "text, input_ids or input_embeds is required");
        assertInvalid(RequestKind.GENERATE, body("text", null, "input_ids", null),
                "text, input_ids or input_embeds is required");
    }

    @Test
    void rejectsEmptyInputArraysOnEveryPath() {
        assertInvalid(RequestKind.COMPLETIONS, body("prompt", List.of()), "prompt must not be an empty array");
        assertInvalid(RequestKind.EMBEDDINGS, body("input", List.of()), "input must not be an empty array");
        assertInvalid(RequestKind.GENERATE, body("input_ids", List.of()), "input_ids must not be an empty array");
        assertInvalid(RequestKind.GENERATE, body("text", List.of()), "text must not be an empty array");
        assertInvalid(RequestKind.CHAT, body("messages", List.of()), "messages must be a non-empty array");
    }

    @Test
    void rejectsAnEmptySequenceInsideATokenIdBatch() {
        assertInvalid(RequestKind.GENERATE, body("input_ids", List.of(List.of(1, 2), List.of())),
                "input_ids[1] must not be an empty array");
        assertInvalid(RequestKind.COMPLETIONS, body("prompt", List.of(List.of())),
                "prompt[0] must not be an empty array");
    }

    @Test
    void rejectsTokenIdsInGenerateText() {
        assertInvalid(RequestKind.GENERATE, body("text", List.of(1, 2)), "text[0] must be a string");
    }

    @Test
    void rejectsNonIntegerInputIds() {
        assertInvalid(RequestKind.GENERATE, body("input_ids", List.of(List.of(1, "x"))),
                "input_ids[0][1] must be an integer token id");
        assertInvalid(RequestKind.GENERATE, body("input_ids", List.of("1")),
                "input_ids[0] must be an integer token id or an array of them");
        assertInvalid(RequestKind.GENERATE, body("input_ids", "1 2"),
                "input_ids must be an array of integers or of integer arrays");
    }

    private static void assertInvalid(RequestKind kind, Map<String, Object> body, String message) {
        assertThatThrownBy(() -> RoutingText.extract(kind, body)).isInstanceOf(GatewayException.class)
                .hasMessage(message)
                .satisfies(e -> assertThat(((GatewayException) e).error()).isEqualTo(GatewayError.INVALID_REQUEST));
    }

    @Test
    void rerankRoutesByItsQueryAndNeedsDocuments() {
        assertThat(RoutingText.extract(RequestKind.RERANK, body("query", "what is a llama", "documents",
                List.of("a camelid", "a model")))).isEqualTo("what is a llama");
        assertThatThrownBy(() -> RoutingText.extract(RequestKind.RERANK, body("documents", List.of("x"))))
                .hasMessage("query is required and must be a string");
        assertThatThrownBy(() -> RoutingText.extract(RequestKind.RERANK, body("query", "q", "documents", List.of())))
                .hasMessage("documents must be a non-empty array");
    }

    @Test
    void classifyRoutesByItsInputLikeEmbeddings() {
        assertThat(RoutingText.extract(RequestKind.CLASSIFY, body("input", List.of("good", "bad"))))
                .isEqualTo("good bad");
    }

    @Test
    void tokenizeRoutesByItsPromptOrItsMessagesAndDetokenizeByItsTokens() {
        assertThat(RoutingText.extract(RequestKind.TOKENIZE, body("prompt", "hello"))).isEqualTo("hello");
        List<Object> messages = List.of(Map.of("role", "user", "content", "hi"));
        assertThat(RoutingText.extract(RequestKind.TOKENIZE, body("messages", messages)))
                .isEqualTo(ChatTemplate.render(messages, null));
        assertThat(RoutingText.extract(RequestKind.DETOKENIZE, body("tokens", List.of(1, 2, 3)))).isEqualTo("1 2 3");
        assertThatThrownBy(() -> RoutingText.extract(RequestKind.DETOKENIZE, body())).hasMessage("tokens is required");
    }

    @Test
    void responsesRouteByInstructionsThenTheTextOfTheirInput() {
        assertThat(RoutingText.extract(RequestKind.RESPONSES, body("instructions", "be terse", "input", "hi")))
                .isEqualTo("be terse hi");
        List<Object> items = List.of(
                Map.of("type", "message", "role", "user", "content",
                        List.of(Map.of("type", "input_text", "text", "look"), Map.of("type", "input_image"))),
                Map.of("type", "message", "role", "assistant", "content",
                        List.of(Map.of("type", "output_text", "text", "seen"))),
                Map.of("type", "function_call", "name", "f", "arguments", "{\"a\":1}"),
                Map.of("type", "function_call_output", "call_id", "c", "output", "42"),
                Map.of("role", "user", "content", "and now?"));
        assertThat(RoutingText.extract(RequestKind.RESPONSES, body("input", items)))
                .isEqualTo("look seen {\"a\":1} 42 and now?");
        assertThatThrownBy(() -> RoutingText.extract(RequestKind.RESPONSES, body("instructions", "x")))
                .hasMessage("input is required");
        assertThatThrownBy(() -> RoutingText.extract(RequestKind.RESPONSES, body("input", 5)))
                .hasMessage("input must be a string or an array of items");
    }
}
