package dev.caravan.it.request;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
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
import dev.caravan.policies.EngineRuntime;
import dev.caravan.policies.Worker;
import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.forward.ForwardStreamProcessor;
import dev.caravan.sim.EngineApi;

/**
 * A fleet of one SGLang-like and one vLLM-like engine, each refusing the other's own endpoints: the gateway tells them
 * apart at registration and calls each where it listens — the cache flush ({@code /flush_cache} or
 * {@code /reset_prefix_cache}), tokenize and classify ({@code /v1/...} or vLLM's paths).
 */
class EngineTypesIT {

    @RegisterExtension
    static final SimFleetExtension SGLANG = new SimFleetExtension(1, b -> b.timeScale(50).defaultMaxTokens(2)
            .engineApi(EngineApi.SGLANG));
    @RegisterExtension
    static final SimFleetExtension VLLM = new SimFleetExtension(1, b -> b.timeScale(50).defaultMaxTokens(2)
            .engineApi(EngineApi.VLLM));

    private static GatewayHarness gateway;

    @BeforeAll
    static void startGateway() {
        List<String> urls = new ArrayList<>(SGLANG.urls());
        urls.addAll(VLLM.urls());
        gateway = GatewayHarness.start(GatewayHarness.config(urls).with(CoreFlags.DECISION_HEADERS, "true")
                .with(CoreFlags.POLICY_NAME, "round_robin"));
        await().atMost(Duration.ofSeconds(10)).until(() -> gateway.workers().all().stream()
                .allMatch(w -> w.runtime() != null));
    }

    @AfterAll
    static void stopGateway() {
        gateway.close();
    }

    @Test
    void detectsEachWorkersEngine() {
        assertThat(gateway.workers().findByUrl(SGLANG.urls().get(0))).map(Worker::runtime).hasValue(EngineRuntime.SGLANG);
        assertThat(gateway.workers().findByUrl(VLLM.urls().get(0))).map(Worker::runtime).hasValue(EngineRuntime.VLLM);
        JsonNode listed = GatewayClient.parse(gateway.client().get("/workers").body()).path("workers");
        Set<String> types = new HashSet<>();
        listed.forEach(w -> types.add(w.path("runtime_type").asText()));
        assertThat(types).containsExactlyInAnyOrder("sglang", "vllm");
    }

    @Test
    void flushesEachEngineAtItsOwnEndpoint() {
        HttpResponse<String> r = gateway.client().postJson("/flush_cache", "{}");
        JsonNode body = GatewayClient.parse(r.body());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(body.path("status").asText()).isEqualTo("success");
        assertThat(body.path("workers_flushed").asInt()).isEqualTo(2);
    }

    @Test
    void tokenizeAndClassifyReachBothEnginesAtTheirOwnPaths() {
        for (String path : List.of("/v1/tokenize", "/v1/classify")) {
            Set<String> reached = new HashSet<>();
            for (int i = 0; i < 2; i++) { // round robin: one request on each engine
                HttpResponse<String> r = gateway.client().postJson(path,
                        GatewayClient.json(Map.of("model", SGLANG.model(), "prompt", "abcd", "input", "abcd")));
                assertThat(r.statusCode()).as(path + ": " + r.body()).isEqualTo(200);
                reached.add(r.headers().firstValue(ForwardStreamProcessor.WORKER_HEADER).orElseThrow());
            }
            assertThat(reached).as(path).containsExactlyInAnyOrder(SGLANG.urls().get(0), VLLM.urls().get(0));
        }
    }

    @Test
    void serverInfoIsAnsweredByTheSglangEngine() {
        HttpResponse<String> r = gateway.client().get("/get_server_info");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(GatewayClient.parse(r.body()).path("port").asInt()).isEqualTo(SGLANG.engine(0).port());
    }
}
