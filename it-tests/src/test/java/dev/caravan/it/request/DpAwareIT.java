package dev.caravan.it.request;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.caravan.it.GatewayClient;
import dev.caravan.it.GatewayHarness;
import dev.caravan.it.SimFleetExtension;
import dev.caravan.policies.Worker;
import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.engine.EngineApiFeature;
import dev.caravan.processors.forward.ForwardStreamProcessor;

/**
 * {@code --dp-aware}: an engine with two data-parallel ranks becomes workers {@code url@0} and {@code url@1}, the policy
 * balances across them, and each request runs on the rank it was sent to.
 */
class DpAwareIT {

    @RegisterExtension
    static final SimFleetExtension SIMS = new SimFleetExtension(1, b -> b.timeScale(50).defaultMaxTokens(2)
            .dataParallelSize(2));

    private static GatewayHarness gateway;

    @BeforeAll
    static void startGateway() {
        gateway = GatewayHarness.start(GatewayHarness.config(SIMS.urls()).with(CoreFlags.DECISION_HEADERS, "true")
                .with(EngineApiFeature.DP_AWARE, "true")
                .with(CoreFlags.POLICY_NAME, "round_robin"));
    }

    @AfterAll
    static void stopGateway() {
        gateway.close();
    }

    private static long rankQueries(int rank) {
        JsonNode stats = GatewayClient.parse(new GatewayClient(SIMS.urls().get(0)).get("/sim/stats").body());
        return stats.path("ranks").get(rank).path("prefix_cache_queries").asLong();
    }

    @Test
    void routesToEachRankAsItsOwnWorkerAndPinsTheRequestToIt() {
        String engine = SIMS.urls().get(0);
        // the engine's plain worker is replaced by its ranks one at a time: wait for the whole swap, not a size of 2
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(gateway.workers().all())
                .extracting(Worker::url).containsExactly(engine + "@0", engine + "@1"));

        for (int round = 0; round < 3; round++) {
            List<String> workers = new ArrayList<>();
            long[] before = {rankQueries(0), rankQueries(1)};
            for (int i = 0; i < 2; i++) {
                HttpResponse<String> r = gateway.client().postJson("/v1/completions", GatewayClient.json(Map.of(
                        "model", SIMS.model(), "prompt", "round " + round + " request " + i + " " + "x".repeat(64))));
                assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
                workers.add(r.headers().firstValue(ForwardStreamProcessor.WORKER_HEADER).orElseThrow());
            }
            assertThat(workers).containsExactlyInAnyOrder(engine + "@0", engine + "@1");
            assertThat(rankQueries(0)).as("rank 0 served one").isGreaterThan(before[0]);
            assertThat(rankQueries(1)).as("rank 1 served one").isGreaterThan(before[1]);
        }
    }
}
