package dev.caravan.sim;

import static dev.caravan.sim.Http.at;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The engines' own endpoints as each engine serves them ({@code --engine-api}), and the APIs SGLang's router routes
 * besides chat and completions: rerank, classify, tokenize, the Responses API, and a rank pinned by the body.
 */
class EngineApiTest {

    private static SimEngine sglang;
    private static SimEngine vllm;

    @BeforeAll
    static void start() {
        sglang = SimEngine.start(SimConfig.builder().timeScale(1000).engineApi(EngineApi.SGLANG).dataParallelSize(2)
                .kvPublisher(dev.caravan.sim.kv.KvPublisherKind.SGLANG).build());
        vllm = SimEngine.start(SimConfig.builder().timeScale(1000).engineApi(EngineApi.VLLM).build());
    }

    @AfterAll
    static void stop() {
        sglang.close();
        vllm.close();
    }

    private static int status(SimEngine e, String method, String path) {
        return method.equals("GET") ? Http.get(e.url() + path).statusCode()
                : Http.post(e.url() + path, Map.of()).statusCode();
    }

    @Test
    void eachEngineServesItsOwnEndpointsAndNotTheOthers() {
        assertThat(status(sglang, "GET", "/get_server_info")).isEqualTo(200);
        assertThat(status(sglang, "GET", "/server_info")).isEqualTo(200);
        assertThat(status(sglang, "GET", "/model_info")).isEqualTo(200);
        assertThat(status(sglang, "GET", "/version")).isEqualTo(404);
        assertThat(status(sglang, "POST", "/reset_prefix_cache")).isEqualTo(404);
        assertThat(status(sglang, "POST", "/flush_cache")).isEqualTo(200);

        assertThat(status(vllm, "GET", "/get_server_info")).isEqualTo(404);
        assertThat(status(vllm, "GET", "/get_model_info")).isEqualTo(404);
        assertThat(status(vllm, "POST", "/flush_cache")).isEqualTo(404);
        assertThat(status(vllm, "POST", "/generate")).isEqualTo(404);
        assertThat(status(vllm, "POST", "/v1/tokenize")).isEqualTo(404);
        assertThat(Http.map(Http.get(vllm.url() + "/version").body())).containsKey("version");
        assertThat(status(vllm, "POST", "/reset_prefix_cache")).isEqualTo(200);
    }

    @Test
    void rerankScoresEveryDocumentInTheEnginesShape() {
        Map<String, Object> body = Map.of("query", "which animal", "documents", List.of("a llama", "a stone", "a bee"));
        List<Object> sg = Http.list(Http.post(sglang.url() + "/v1/rerank", body).body());
        assertThat(sg).hasSize(3);
        double first = ((Number) at(Http.map(Http.JSON.valueToTree(sg.get(0)).toString()), "score")).doubleValue();
        double last = ((Number) at(Http.map(Http.JSON.valueToTree(sg.get(2)).toString()), "score")).doubleValue();
        assertThat(first).isGreaterThanOrEqualTo(last).isBetween(0.0, 1.0);
        Map<String, Object> v = Http.map(Http.post(vllm.url() + "/rerank", body).body());
        assertThat((List<?>) at(v, "results")).hasSize(3);
        assertThat((Object) at(v, "results", 0, "relevance_score")).isInstanceOf(Double.class);
        assertThat(Http.post(sglang.url() + "/v1/rerank", Map.of("documents", List.of("x"))).statusCode())
                .isEqualTo(400);
    }

    @Test
    void classifyAndTokenizeAnswerAtEachEnginesPath() {
        Map<String, Object> c = Http.map(Http.post(vllm.url() + "/classify", Map.of("input", List.of("a", "b"))).body());
        assertThat((List<?>) at(c, "data")).hasSize(2);
        assertThat((Integer) at(c, "data", 1, "num_classes")).isEqualTo(2);
        assertThat(Http.post(sglang.url() + "/v1/classify", Map.of("input", "a")).statusCode()).isEqualTo(200);
        Map<String, Object> t = Http.map(Http.post(sglang.url() + "/v1/tokenize", Map.of("prompt", "abcdefgh")).body());
        assertThat((Integer) at(t, "count")).isEqualTo(2);
        HttpResponse<String> d = Http.post(vllm.url() + "/detokenize", Map.of("tokens", at(t, "tokens")));
        assertThat(d.statusCode()).isEqualTo(200);
        assertThat(Http.map(d.body())).containsKey("prompt");
    }

    @Test
    void aResponseIsStoredAndContinuedOnlyWhereItWasStored() {
        Map<String, Object> first = Http.map(Http.post(sglang.url() + "/v1/responses",
                Map.of("input", "plan a trip", "max_output_tokens", 3)).body());
        String id = (String) at(first, "id");
        assertThat((String) at(first, "object")).isEqualTo("response");
        assertThat((String) at(first, "output", 0, "content", 0, "type")).isEqualTo("output_text");
        assertThat((Integer) at(first, "usage", "output_tokens")).isEqualTo(3);

        HttpResponse<String> next = Http.post(sglang.url() + "/v1/responses",
                Map.of("input", "and then?", "previous_response_id", id, "max_output_tokens", 2));
        assertThat(next.statusCode()).isEqualTo(200);
        assertThat((String) at(Http.map(next.body()), "previous_response_id")).isEqualTo(id);
        assertThat((Integer) at(Http.map(next.body()), "usage", "input_tokens"))
                .isGreaterThan((Integer) at(first, "usage", "input_tokens"));
        assertThat(Http.post(vllm.url() + "/v1/responses", Map.of("input", "x", "previous_response_id", id))
                .statusCode()).as("another engine never stored it").isEqualTo(404);
        assertThat(Http.map(Http.get(sglang.url() + "/v1/responses/" + id).body())).containsEntry("id", id);
    }

    @Test
    void aStoredResponseIsCancelledOnlyWhileRunningAndDeletedOnce() {
        String id = (String) at(Http.map(Http.post(vllm.url() + "/v1/responses",
                Map.of("input", "keep it", "max_output_tokens", 1)).body()), "id");
        HttpResponse<String> cancel = Http.post(vllm.url() + "/v1/responses/" + id + "/cancel", Map.of());
        assertThat(cancel.statusCode()).as("it completed already").isEqualTo(400);
        assertThat(Http.post(vllm.url() + "/v1/responses/resp_unknown/cancel", Map.of()).statusCode()).isEqualTo(404);

        HttpResponse<String> deleted = Http.send(HttpRequest.newBuilder(
                URI.create(vllm.url() + "/v1/responses/" + id)).DELETE().build());
        assertThat(deleted.statusCode()).isEqualTo(200);
        assertThat(Http.map(deleted.body())).containsEntry("id", id).containsEntry("object", "response.deleted")
                .containsEntry("deleted", true);
        assertThat(Http.get(vllm.url() + "/v1/responses/" + id).statusCode()).isEqualTo(404);
        assertThat(Http.send(HttpRequest.newBuilder(URI.create(vllm.url() + "/v1/responses/"
                + id)).DELETE().build()).statusCode()).isEqualTo(404);
    }

    @Test
    void aStreamedResponseSendsNamedEventsAndNoDone() {
        HttpResponse<String> r = Http.post(vllm.url() + "/v1/responses",
                Map.of("input", "stream it", "stream", true, "max_output_tokens", 2));
        assertThat(r.body()).startsWith("event: response.created\ndata: ")
                .contains("event: response.output_text.delta").contains("event: response.completed")
                .doesNotContain("[DONE]");
        List<String> data = r.body().lines().filter(l -> l.startsWith("data: ")).map(l -> l.substring(6)).toList();
        assertThat(data).hasSize(1 + 2 + 1);
        assertThat((String) at(Http.map(data.get(0)), "response", "id"))
                .isEqualTo(at(Http.map(data.get(3)), "response", "id"));
    }

    @Test
    void aRankInTheBodyPinsTheRequestToThatRank() {
        Http.post(sglang.url() + "/sim/stats/reset", Map.of());
        Map<String, Object> before = Http.map(Http.get(sglang.url() + "/sim/stats").body());
        long rank1 = ((Number) at(before, "ranks", 1, "prefix_cache_queries")).longValue();
        for (int i = 0; i < 3; i++) {
            assertThat(Http.post(sglang.url() + "/v1/completions", Map.of("prompt", "pinned " + i, "max_tokens", 1,
                    "data_parallel_rank", 1)).statusCode()).isEqualTo(200);
        }
        Map<String, Object> after = Http.map(Http.get(sglang.url() + "/sim/stats").body());
        assertThat(((Number) at(after, "ranks", 1, "prefix_cache_queries")).longValue()).isGreaterThan(rank1);
        assertThat(((Number) at(after, "ranks", 0, "prefix_cache_queries")).longValue())
                .isEqualTo(((Number) at(before, "ranks", 0, "prefix_cache_queries")).longValue());
    }
}
