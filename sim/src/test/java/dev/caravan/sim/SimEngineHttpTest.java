package dev.caravan.sim;

import static dev.caravan.sim.Http.at;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class SimEngineHttpTest {

    private static final String SYSTEM = "You are a careful assistant for the caravan company. ".repeat(8);
    private static SimEngine engine;

    @BeforeAll
    static void start() {
        engine = SimEngine.start(SimConfig.builder().timeScale(1000).build());
    }

    @AfterAll
    static void stop() {
        engine.close();
    }

    @Test
    void bindsAnEphemeralLoopbackPortAndListsTheModel() {
        assertThat(engine.port()).isPositive();
        assertThat(engine.url()).isEqualTo("http://127.0.0.1:" + engine.port());
        Map<String, Object> models = Http.map(Http.get(engine.url() + "/v1/models").body());
        assertThat((String) at(models, "data", 0, "id")).isEqualTo(SimConfig.DEFAULT_MODEL);
        assertThat(Http.get(engine.url() + "/health").statusCode()).isEqualTo(200);
    }

    @Test
    void completionReportsCachedTokensForASharedPrefix() {
        String url = engine.url() + "/v1/completions";
        Map<String, Object> first = Http.map(Http.post(url, Map.of("prompt", SYSTEM + "first question",
                "max_tokens", 4)).body());
        Map<String, Object> second = Http.map(Http.post(url, Map.of("prompt", SYSTEM + "another question",
                "max_tokens", 4)).body());
        int promptTokens = ((SYSTEM + "first question").length() + 3) / 4;
        assertThat((Integer) at(first, "usage", "prompt_tokens")).isEqualTo(promptTokens);
        assertThat((Integer) at(first, "usage", "completion_tokens")).isEqualTo(4);
        assertThat((String) at(first, "choices", 0, "finish_reason")).isEqualTo("length");
        assertThat((String) at(first, "choices", 0, "text")).hasSize(16);
        int shared = SYSTEM.length() / 4 / 16 * 16;
        assertThat((Integer) at(second, "usage", "prompt_tokens_details", "cached_tokens")).isEqualTo(shared);
    }

    @Test
    void chatStreamSendsRoleThenOneChunkPerTokenThenUsageThenDone() {
        HttpResponse<String> r = Http.post(engine.url() + "/v1/chat/completions", Map.of("messages",
                List.of(Map.of("role", "user", "content", "stream please")), "max_tokens", 5, "stream", true));
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("content-type")).hasValue("text/event-stream");
        List<String> data = Http.sseData(r.body());
        assertThat(data).hasSize(1 + 5 + 1 + 1);
        assertThat((String) at(Http.map(data.get(0)), "choices", 0, "delta", "role")).isEqualTo("assistant");
        for (int i = 1; i <= 5; i++) {
            Map<String, Object> chunk = Http.map(data.get(i));
            assertThat((String) at(chunk, "object")).isEqualTo("chat.completion.chunk");
            assertThat((String) at(chunk, "choices", 0, "delta", "content")).hasSize(4);
            assertThat((Object) at(chunk, "choices", 0, "finish_reason")).isEqualTo(i == 5 ? "length" : null);
        }
        Map<String, Object> usage = Http.map(data.get(6));
        assertThat((List<?>) at(usage, "choices")).isEmpty();
        assertThat((Integer) at(usage, "usage", "completion_tokens")).isEqualTo(5);
        assertThat(data.get(7)).isEqualTo("[DONE]");
        assertThat(r.body()).endsWith("data: [DONE]\n\n");
    }

    @Test
    void generateAnswersSglangShapesForSingleAndBatch() {
        Map<String, Object> one = Http.map(Http.post(engine.url() + "/generate", Map.of("input_ids",
                List.of(1, 2, 3, 4, 5), "sampling_params", Map.of("max_new_tokens", 3))).body());
        assertThat((String) at(one, "text")).hasSize(12);
        assertThat((List<?>) at(one, "output_ids")).hasSize(3);
        assertThat((Integer) at(one, "meta_info", "prompt_tokens")).isEqualTo(5);
        assertThat((Integer) at(one, "meta_info", "completion_tokens")).isEqualTo(3);
        assertThat((String) at(one, "meta_info", "finish_reason", "type")).isEqualTo("length");
        List<Object> batch = Http.list(Http.post(engine.url() + "/generate", Map.of("text", List.of("alpha", "beta"),
                "sampling_params", Map.of("max_new_tokens", 2))).body());
        assertThat(batch).hasSize(2);
        assertThat((Integer) at(batch, 1, "meta_info", "completion_tokens")).isEqualTo(2);
    }

    @Test
    void malformedBodiesGetA400NamingTheProblem() {
        HttpResponse<String> notJson = Http.post(engine.url() + "/v1/completions", "{\"prompt\": ");
        assertThat(notJson.statusCode()).isEqualTo(400);
        assertThat((String) at(Http.map(notJson.body()), "error", "message")).startsWith("request body is not valid JSON");
        HttpResponse<String> noPrompt = Http.post(engine.url() + "/v1/completions", Map.of("max_tokens", 3));
        assertThat(noPrompt.statusCode()).isEqualTo(400);
        assertThat((String) at(Http.map(noPrompt.body()), "error", "message")).contains("prompt");
        HttpResponse<String> badMax = Http.post(engine.url() + "/v1/completions", Map.of("prompt", "x",
                "max_tokens", "many"));
        assertThat((String) at(Http.map(badMax.body()), "error", "message"))
                .isEqualTo("max_tokens must be an integer, was \"many\"");
        HttpResponse<String> noMessages = Http.post(engine.url() + "/v1/chat/completions", Map.of("messages", List.of()));
        assertThat(noMessages.statusCode()).isEqualTo(400);
        HttpResponse<String> both = Http.post(engine.url() + "/generate", Map.of("text", "a", "input_ids", List.of(1)));
        assertThat((String) at(Http.map(both.body()), "error", "message")).isEqualTo("give either text or input_ids, not both");
    }

    @Test
    void rejectsAnUnknownModelAndAnOverlongRequest() {
        HttpResponse<String> model = Http.post(engine.url() + "/v1/completions", Map.of("prompt", "x", "model", "gpt-9"));
        assertThat(model.statusCode()).isEqualTo(404);
        HttpResponse<String> longOne = Http.post(engine.url() + "/v1/completions", Map.of("prompt", "x",
                "max_tokens", 8192));
        assertThat(longOne.statusCode()).isEqualTo(400);
        assertThat((String) at(Http.map(longOne.body()), "error", "message"))
                .contains("maximum context length is 8192 tokens");
    }

    @Test
    void unknownPathIs404() {
        assertThat(Http.get(engine.url() + "/nope").statusCode()).isEqualTo(404);
    }
}
