package dev.caravan.sim.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class SseFramingTest {

    @Test
    void framesOneDataEventPerPayload() {
        assertThat(SseWriter.frame("{\"a\":1}").toString()).isEqualTo("data: {\"a\":1}\n\n");
        assertThat(SseWriter.DONE.toString()).isEqualTo("data: [DONE]\n\n");
    }

    @Test
    void directTokenChunksEqualWhatJacksonWritesForTheMap() {
        Map<String, Object> env = Json.obj("id", "cmpl-1", "object", "text_completion", "created", 17L, "model", "m\"x");
        String prefix = Json.string(env);
        prefix = prefix.substring(0, prefix.length() - 1) + ",\"choices\":[{\"index\":";
        env.put("choices", List.of(Json.obj("index", 3, "text", " a\"\\\n", "logprobs", null, "finish_reason", "length",
                "stop_reason", null)));
        assertThat(OpenAiHandler.tokenChunk(prefix, false, 3, " a\"\\\n", true)).isEqualTo(Json.string(env));

        Map<String, Object> chat = Json.obj("id", "c", "object", "chat.completion.chunk", "created", 1L, "model", "m");
        String chatPrefix = Json.string(chat);
        chatPrefix = chatPrefix.substring(0, chatPrefix.length() - 1) + ",\"choices\":[{\"index\":";
        chat.put("choices", List.of(Json.obj("index", 0, "delta", Json.obj("content", " é"), "logprobs", null,
                "finish_reason", null)));
        assertThat(OpenAiHandler.tokenChunk(chatPrefix, true, 0, " é", false)).isEqualTo(Json.string(chat));
    }
}
