package dev.caravan.sim.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import dev.caravan.sim.Http;
import dev.caravan.sim.SimConfig;
import dev.caravan.sim.SimEngine;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** One engine serving two data-parallel ranks, each with its own scheduler, cache and KV-event sockets. */
class DataParallelEngineTest {

    private SimEngine engine;

    @BeforeEach
    void start() {
        engine = SimEngine.start(SimConfig.builder().dataParallelSize(2).decodeMsPerToken(20)
                .kvEventsEndpoint("tcp://127.0.0.1:*").kvReplayEndpoint("tcp://127.0.0.1:*").build());
    }

    @AfterEach
    void stop() {
        engine.close();
    }

    private HttpResponse<String> complete(String prompt, int maxTokens, String rank) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(engine.url() + "/v1/completions"))
                .header("content-type", "application/json").timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString("{\"prompt\":\"" + prompt + "\",\"max_tokens\":" + maxTokens
                        + "}"));
        if (rank != null) {
            b.header("X-data-parallel-rank", rank);
        }
        return Http.send(b.build());
    }

    @Test
    void eachRankPublishesOnItsOwnSocketsWithItsRankInTheBatch() {
        List<String> events = engine.kvEventsEndpoints();
        assertThat(events).hasSize(2).doesNotHaveDuplicates();
        assertThat(engine.kvReplayEndpoints()).hasSize(2).doesNotHaveDuplicates();
        int[] n = {0};
        for (int i = 0; i < 2; i++) {
            int rank = i;
            String r = Integer.toString(rank);
            try (KvSubscriber sub = new KvSubscriber(events.get(rank))) {
                sub.join(() -> complete("probe " + r + " " + n[0]++ + " " + "x".repeat(80), 1, r));
                complete("rank " + r + " " + "y".repeat(120), 1, r);
                sub.awaitEvent(e -> e.type().equals("BlockStored"));
                assertThat(sub.received()).allSatisfy(m -> assertThat(m.batch().dpRank()).isEqualTo(rank));
            }
        }
    }

    @Test
    void anUnpinnedRequestGoesToTheLeastLoadedRankAsVllmsApiServerDoes() {
        CompletableFuture<HttpResponse<String>> busy = HttpClient.newHttpClient().sendAsync(
                HttpRequest.newBuilder(URI.create(engine.url() + "/v1/completions"))
                        .header("content-type", "application/json").header("X-data-parallel-rank", "0")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"prompt\":\"long\",\"max_tokens\":400}")).build(),
                HttpResponse.BodyHandlers.ofString());
        await().atMost(Duration.ofSeconds(10)).until(() -> engine.running() == 1);
        String prompt = "z".repeat(64);                                     // 16 synthetic tokens
        assertThat(complete(prompt, 1, null).statusCode()).isEqualTo(200);
        String metrics = Http.get(engine.url() + "/metrics").body();
        assertThat(metrics).contains("vllm:prefix_cache_queries_total{model_name=\"" + engine.config().model()
                + "\",engine=\"1\"} 16.0");
        busy.cancel(true);
    }

    @Test
    void rejectsARankTheEngineDoesNotHave() {
        HttpResponse<String> outside = complete("x", 1, "2");
        assertThat(outside.statusCode()).isEqualTo(400);
        assertThat(outside.body()).contains("data_parallel_rank 2 is out of range [0, 2)");
        HttpResponse<String> garbage = complete("x", 1, "two");
        assertThat(garbage.statusCode()).isEqualTo(400);
        assertThat(garbage.body()).contains("X-data-parallel-rank must be an integer, was \\\"two\\\"");
    }

    @Test
    void getLoadAndServerInfoListEveryRank() {
        List<Object> load = Http.list(Http.get(engine.url() + "/get_load").body());
        assertThat(load.stream().map(l -> ((Map<?, ?>) l).get("dp_rank")).toList()).isEqualTo(List.of(0, 1));
        Map<String, Object> info = Http.map(Http.get(engine.url() + "/get_server_info").body());
        assertThat(info.get("dp_size")).isEqualTo(2);
        assertThat(info.get("kv_events_endpoints")).isEqualTo(engine.kvEventsEndpoints());
    }
}
