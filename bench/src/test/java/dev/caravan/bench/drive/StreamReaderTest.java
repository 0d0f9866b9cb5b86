package dev.caravan.bench.drive;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import io.vertx.core.buffer.Buffer;

class StreamReaderTest {

    @Test
    void firstEventSetsTtftAndEngineAndUsageChunkSetsTokens() {
        RequestRecord r = new RequestRecord(0, false, 0, 0, 0, 0, null, 0);
        StreamReader s = new StreamReader(r, true);
        s.onEvent(Buffer.buffer("data: {\"id\":\"chatcmpl-3-17\",\"choices\":[{\"index\":0,\"delta\":{\"role\":"
                + "\"assistant\",\"content\":\"\"}}]}"), 100);
        s.onEvent(Buffer.buffer("data: {\"id\":\"chatcmpl-3-17\",\"choices\":[{\"index\":0,\"delta\":{\"content\":"
                + "\" sea\"}}]}"), 200);
        s.onEvent(Buffer.buffer("data: {\"id\":\"chatcmpl-3-17\",\"choices\":[],\"usage\":{\"prompt_tokens\":40,"
                + "\"completion_tokens\":1,\"total_tokens\":41,\"prompt_tokens_details\":{\"cached_tokens\":32}}}"),
                300);
        s.onEvent(Buffer.buffer("data: [DONE]"), 400);
        assertThat(r.firstTokenNanos).isEqualTo(100);
        assertThat(r.engine).isEqualTo("3");
        assertThat(r.promptTokens).isEqualTo(40);
        assertThat(r.cachedTokens).isEqualTo(32);
        assertThat(r.completionTokens).isEqualTo(1);
        assertThat(s.output()).isEqualTo(" sea");
        assertThat(r.error).isNull();
    }

    @Test
    void completionsTextIsCollectedAndErrorsAreRecorded() {
        RequestRecord r = new RequestRecord(0, false, 0, 0, 0, 0, null, 0);
        StreamReader s = new StreamReader(r, true);
        s.onEvent(Buffer.buffer("data: {\"id\":\"cmpl-0-1\",\"choices\":[{\"index\":0,\"text\":\" owl\"}]}"), 5);
        s.onEvent(Buffer.buffer("data: {\"error\":{\"message\":\"boom\"}}"), 6);
        assertThat(r.engine).isEqualTo("0");
        assertThat(s.output()).isEqualTo(" owl");
        assertThat(r.error).contains("boom");
    }

    @Test
    void idsWithoutAnEnginePartGiveNoEngine() {
        assertThat(StreamReader.engineOf("{\"id\":\"chatcmpl-abc\"}")).isNull();
        assertThat(StreamReader.engineOf("{\"object\":\"x\"}")).isNull();
    }
}
