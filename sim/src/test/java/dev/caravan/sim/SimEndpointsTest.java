package dev.caravan.sim;

import static dev.caravan.sim.Http.at;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Streaming shapes of completions and /generate, and the admin endpoints. */
class SimEndpointsTest {

    private static SimEngine engine;

    @BeforeAll
    static void start() {
        engine = SimEngine.start(SimConfig.builder().timeScale(1000).kvCapacityTokens(16_000).build());
    }

    @AfterAll
    static void stop() {
        engine.close();
    }

    @Test
    void completionStreamHasOneTextChunkPerTokenAndUsageOnlyWhenNotDisabled() {
        List<String> data = Http.sseData(Http.post(engine.url() + "/v1/completions", Map.of("prompt", "stream me",
                "max_tokens", 3, "stream", true, "stream_options", Map.of("include_usage", false))).body());
        assertThat(data).hasSize(4);
        assertThat((String) at(Http.map(data.get(0)), "object")).isEqualTo("text_completion");
        assertThat((String) at(Http.map(data.get(2)), "choices", 0, "finish_reason")).isEqualTo("length");
        assertThat(data.get(3)).isEqualTo("[DONE]");
    }

    @Test
    void generateStreamCarriesCumulativeTextAndIds() {
        List<String> data = Http.sseData(Http.post(engine.url() + "/generate", Map.of("text", "stream me",
                "stream", true, "sampling_params", Map.of("max_new_tokens", 3))).body());
        assertThat(data).hasSize(4);
        Map<String, Object> first = Http.map(data.get(0));
        Map<String, Object> last = Http.map(data.get(2));
        assertThat((List<?>) at(first, "output_ids")).hasSize(1);
        assertThat((Object) at(first, "meta_info", "finish_reason")).isNull();
        assertThat((List<?>) at(last, "output_ids")).hasSize(3);
        assertThat((String) at(last, "text")).startsWith(at(first, "text"));
        assertThat((String) at(last, "meta_info", "finish_reason", "type")).isEqualTo("length");
    }

    @Test
    void sameTextGivesTheSameOutputOnEveryRun() {
        Map<String, Object> body = Map.of("text", "deterministic", "sampling_params", Map.of("max_new_tokens", 4));
        String a = at(Http.map(Http.post(engine.url() + "/generate", body).body()), "text");
        String b = at(Http.map(Http.post(engine.url() + "/generate", body).body()), "text");
        assertThat(a).isEqualTo(b).hasSize(16);
    }

    @Test
    void embeddingsAreDeterministicUnitVectors() {
        Map<String, Object> r = Http.map(Http.post(engine.url() + "/v1/embeddings", Map.of("input",
                List.of("alpha", "alpha", "beta"))).body());
        List<Double> a = at(r, "data", 0, "embedding");
        List<Double> c = at(r, "data", 2, "embedding");
        assertThat(a).hasSize(SimConfig.DEFAULT_EMBEDDING_DIM).isEqualTo(at(r, "data", 1, "embedding"));
        assertThat(c).isNotEqualTo(a);
        // float32 values: unit length to float32's precision
        assertThat(a.stream().mapToDouble(x -> x * x).sum()).isCloseTo(1.0, org.assertj.core.data.Offset.offset(1e-6));
        assertThat((Integer) at(r, "usage", "prompt_tokens")).isEqualTo(2 + 2 + 1);
    }

    @Test
    void base64EmbeddingsAreTheLittleEndianFloat32BytesOfTheFloatAnswer() {
        Map<String, Object> floats = Http.map(Http.post(engine.url() + "/v1/embeddings", Map.of("input", "alpha",
                "encoding_format", "float")).body());
        Map<String, Object> encoded = Http.map(Http.post(engine.url() + "/v1/embeddings", Map.of("input", "alpha",
                "encoding_format", "base64")).body());
        ByteBuffer bytes = ByteBuffer.wrap(Base64.getDecoder().decode((String) at(encoded, "data", 0, "embedding")))
                .order(ByteOrder.LITTLE_ENDIAN);
        List<Double> decoded = new ArrayList<>();
        while (bytes.hasRemaining()) {
            decoded.add((double) bytes.getFloat());
        }
        assertThat(decoded).hasSize(SimConfig.DEFAULT_EMBEDDING_DIM).isEqualTo(at(floats, "data", 0, "embedding"));
    }

    @Test
    void unknownEmbeddingEncodingIsA400() {
        HttpResponse<String> r = Http.post(engine.url() + "/v1/embeddings", Map.of("input", "alpha",
                "encoding_format", "int8"));
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.body()).contains("encoding_format must be 'float' or 'base64', got int8");
    }

    @Test
    void serverInfoReportsKvCapacityAndLoadHasTheSglangShape() {
        Map<String, Object> info = Http.map(Http.get(engine.url() + "/get_server_info").body());
        assertThat(info).containsEntry("max_total_num_tokens", 16_000).containsEntry("kv_capacity_tokens", 16_000)
                .containsEntry("page_size", 16).containsEntry("disaggregation_mode", "null");
        List<Object> load = Http.list(Http.get(engine.url() + "/get_load").body());
        assertThat(load).hasSize(1);
        assertThat((Map<String, Object>) at(load, 0)).containsKeys("dp_rank", "num_reqs", "num_waiting_reqs",
                "num_tokens");
    }

    @Test
    void metricsExposeTheScrapedVllmNames() {
        Http.post(engine.url() + "/v1/completions", Map.of("prompt", "x".repeat(200), "max_tokens", 1));
        Http.post(engine.url() + "/v1/completions", Map.of("prompt", "x".repeat(200) + "y", "max_tokens", 1));
        String text = Http.get(engine.url() + "/metrics").body();
        assertThat(text).contains("vllm:num_requests_running{model_name=\"" + SimConfig.DEFAULT_MODEL + "\"} 0.0")
                .contains("vllm:num_requests_waiting{").contains("vllm:kv_cache_usage_perc{")
                .contains("# TYPE vllm:prefix_cache_queries_total counter").contains("vllm:prefix_cache_hits_total{");
        double hits = metric(text, "vllm:prefix_cache_hits_total");
        assertThat(hits).isGreaterThanOrEqualTo(48.0);
    }

    private static double metric(String text, String name) {
        for (String line : text.split("\n")) {
            if (line.startsWith(name + "{")) {
                return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        throw new AssertionError(name + " missing");
    }

    @Test
    void flushCacheEmptiesTheCacheWhenIdle() {
        Http.post(engine.url() + "/v1/completions", Map.of("prompt", "z".repeat(400), "max_tokens", 1));
        HttpResponse<String> r = Http.post(engine.url() + "/flush_cache", "");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).startsWith("Cache flushed.");
        Map<String, Object> again = Http.map(Http.post(engine.url() + "/v1/completions", Map.of("prompt",
                "z".repeat(400), "max_tokens", 1)).body());
        assertThat((Integer) at(again, "usage", "prompt_tokens_details", "cached_tokens")).isZero();
        assertThat(engine.flushCache()).isTrue();
    }

    @Test
    void healthGenerateRunsAGeneration() {
        long before = engine.stats().sequences();
        assertThat(Http.get(engine.url() + "/health_generate").statusCode()).isEqualTo(200);
        assertThat(engine.stats().sequences()).isEqualTo(before + 1);
    }

    @Test
    void statsAreServedAsJson() {
        Map<String, Object> stats = Http.map(Http.get(engine.url() + "/sim/stats").body());
        assertThat(stats).containsKeys("requests", "requests_by_status", "cancelled", "cancelled_waiting",
                "cached_tokens", "prompt_tokens", "running", "waiting", "kv_usage");
    }
}
