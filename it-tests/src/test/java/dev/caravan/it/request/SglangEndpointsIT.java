package dev.caravan.it.request;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.caravan.it.GatewayClient;
import dev.caravan.it.GatewayHarness;
import dev.caravan.it.SimFleetExtension;
import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.forward.ForwardStreamProcessor;

/**
 * The endpoints SGLang's router serves besides chat and completions, through the real gateway to simulated engines:
 * server and model info answered by a worker, {@code /v1/loads}, rerank (both paths), classify, tokenize, detokenize
 * and the Responses API — whose continuations, retrievals, cancels and deletes go back to the engine that stored the
 * response, streamed or not.
 */
class SglangEndpointsIT {

    @RegisterExtension
    static final SimFleetExtension SIMS = new SimFleetExtension(3, b -> b.timeScale(50).defaultMaxTokens(4));

    private static GatewayHarness gateway;

    @BeforeAll
    static void startGateway() {
        gateway = GatewayHarness.start(GatewayHarness.config(SIMS.urls()).with(CoreFlags.DECISION_HEADERS, "true"));
    }

    @AfterAll
    static void stopGateway() {
        gateway.close();
    }

    private static HttpResponse<String> post(String path, Object body) {
        return gateway.client().postJson(path, GatewayClient.json(body));
    }

    private static String workerOf(HttpResponse<String> r) {
        return r.headers().firstValue(ForwardStreamProcessor.WORKER_HEADER).orElseThrow();
    }

    @Test
    void serverAndModelInfoAreTheFirstHealthyWorkersUnderEitherName() {
        for (String path : List.of("/get_server_info", "/server_info")) {
            HttpResponse<String> r = gateway.client().get(path);
            assertThat(r.statusCode()).as(path).isEqualTo(200);
            assertThat(GatewayClient.parse(r.body()).path("port").asInt()).isEqualTo(SIMS.engine(0).port());
        }
        for (String path : List.of("/get_model_info", "/model_info")) {
            HttpResponse<String> r = gateway.client().get(path);
            assertThat(r.statusCode()).as(path).isEqualTo(200);
            assertThat(GatewayClient.parse(r.body()).path("model_path").asText()).isEqualTo(SIMS.model());
        }
    }

    @Test
    void v1LoadsListsEveryWorker() {
        JsonNode loads = GatewayClient.parse(gateway.client().get("/v1/loads").body());
        assertThat(loads.path("workers")).hasSize(3);
        assertThat(loads.path("workers").get(0).path("load").asLong()).isGreaterThanOrEqualTo(0);
    }

    @Test
    void rerankClassifyTokenizeAndDetokenizeAreRoutedToAWorker() {
        Map<String, Object> rerank = Map.of("model", SIMS.model(), "query", "which animal",
                "documents", List.of("a llama", "a rock"));
        for (String path : List.of("/v1/rerank", "/rerank")) {
            HttpResponse<String> r = post(path, rerank);
            assertThat(r.statusCode()).as(path + ": " + r.body()).isEqualTo(200);
            assertThat(GatewayClient.parse(r.body())).hasSize(2);
            assertThat(SIMS.urls()).contains(workerOf(r));
        }
        HttpResponse<String> c = post("/v1/classify", Map.of("model", SIMS.model(), "input", List.of("good", "bad")));
        assertThat(c.statusCode()).as(c.body()).isEqualTo(200);
        assertThat(GatewayClient.parse(c.body()).path("data")).hasSize(2);
        HttpResponse<String> t = post("/v1/tokenize", Map.of("model", SIMS.model(), "prompt", "abcdefgh"));
        assertThat(t.statusCode()).as(t.body()).isEqualTo(200);
        assertThat(GatewayClient.parse(t.body()).path("count").asInt()).isEqualTo(2);
        HttpResponse<String> d = post("/v1/detokenize", Map.of("model", SIMS.model(), "tokens", List.of(1, 2)));
        assertThat(d.statusCode()).as(d.body()).isEqualTo(200);
        assertThat(GatewayClient.parse(d.body()).has("prompt")).isTrue();
    }

    @Test
    void malformedRequestsOfTheNewApisAre400NamingTheField() {
        HttpResponse<String> r = post("/v1/rerank", Map.of("documents", List.of("x")));
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(GatewayClient.parse(r.body()).path("error").path("message").asText())
                .isEqualTo("query is required and must be a string");
        assertThat(post("/v1/responses", Map.of("model", SIMS.model())).statusCode()).isEqualTo(400);
    }

    @Test
    void aResponseContinuationGoesBackToTheEngineThatStoredIt() {
        Set<String> firstWorkers = new HashSet<>();
        for (int conversation = 0; conversation < 6; conversation++) {
            String topic = String.valueOf((char) ('a' + conversation)).repeat(24); // no shared prefix: spread by load
            HttpResponse<String> first = post("/v1/responses", Map.of("model", SIMS.model(), "input", topic));
            assertThat(first.statusCode()).as(first.body()).isEqualTo(200);
            String worker = workerOf(first);
            firstWorkers.add(worker);
            String id = GatewayClient.parse(first.body()).path("id").asText();
            for (int turn = 0; turn < 2; turn++) {
                HttpResponse<String> next = post("/v1/responses", Map.of("model", SIMS.model(),
                        "input", "turn " + turn, "previous_response_id", id));
                assertThat(next.statusCode()).as(next.body()).isEqualTo(200);
                assertThat(workerOf(next)).isEqualTo(worker);
                assertThat(next.headers().firstValue(ForwardStreamProcessor.DECISION_HEADER))
                        .hasValue("cache_aware:previous_response");
                id = GatewayClient.parse(next.body()).path("id").asText();
            }
        }
        assertThat(firstWorkers).as("new conversations are spread by the policy").hasSizeGreaterThan(1);
    }

    @Test
    void aStoredResponseIsRetrievedCancelledAndDeletedOnTheEngineThatStoredIt() {
        for (int conversation = 0; conversation < 4; conversation++) {
            String topic = String.valueOf((char) ('p' + conversation)).repeat(24);
            HttpResponse<String> first = post("/v1/responses", Map.of("model", SIMS.model(), "input", topic));
            assertThat(first.statusCode()).as(first.body()).isEqualTo(200);
            String id = GatewayClient.parse(first.body()).path("id").asText();
            // only the engine that stored it knows it: every other engine answers 404
            HttpResponse<String> got = gateway.client().get("/v1/responses/" + id);
            assertThat(got.statusCode()).as(got.body()).isEqualTo(200);
            assertThat(GatewayClient.parse(got.body()).path("id").asText()).isEqualTo(id);

            HttpResponse<String> cancel = gateway.client().postJson("/v1/responses/" + id + "/cancel", "");
            assertThat(cancel.statusCode()).as("the engine's answer: it completed already").isEqualTo(400);
            assertThat(cancel.body()).contains("Cannot cancel a synchronous response.");

            HttpResponse<String> deleted = gateway.client().delete("/v1/responses/" + id);
            assertThat(deleted.statusCode()).as(deleted.body()).isEqualTo(200);
            assertThat(GatewayClient.parse(deleted.body()).path("object").asText()).isEqualTo("response.deleted");
            assertThat(gateway.client().get("/v1/responses/" + id).statusCode()).as("the engine forgot it")
                    .isEqualTo(404);
        }
    }

    @Test
    void aResponseIdTheGatewayNeverSawStoredIsNotFound() {
        for (HttpResponse<String> r : List.of(gateway.client().get("/v1/responses/resp_never"),
                gateway.client().delete("/v1/responses/resp_never"),
                gateway.client().postJson("/v1/responses/resp_never/cancel", ""))) {
            assertThat(r.statusCode()).isEqualTo(404);
            JsonNode error = GatewayClient.parse(r.body()).path("error");
            assertThat(error.path("code").asText()).isEqualTo("response_not_found");
            assertThat(error.path("message").asText()).isEqualTo("Response with id 'resp_never' not found.");
        }
    }

    @Test
    void aStreamedResponseIsStreamedAndItsIdRemembered() {
        GatewayClient.Streamed s = gateway.client().stream("/v1/responses", GatewayClient.json(Map.of(
                "model", SIMS.model(), "input", "stream a story", "stream", true, "max_output_tokens", 3)));
        assertThat(s.status()).isEqualTo(200);
        List<String> data = s.data();
        assertThat(data).hasSize(1 + 3 + 1);
        String id = GatewayClient.parse(data.get(0)).path("response").path("id").asText();
        String worker = s.header(ForwardStreamProcessor.WORKER_HEADER);
        HttpResponse<String> next = post("/v1/responses", Map.of("model", SIMS.model(), "input", "go on",
                "previous_response_id", id));
        assertThat(next.statusCode()).as(next.body()).isEqualTo(200);
        assertThat(workerOf(next)).isEqualTo(worker);
    }
}
