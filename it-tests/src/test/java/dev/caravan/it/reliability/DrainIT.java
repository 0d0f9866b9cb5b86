package dev.caravan.it.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.caravan.it.ChaosReport;
import dev.caravan.it.GatewayClient;
import dev.caravan.it.GatewayHarness;
import dev.caravan.it.SimFleetExtension;
import dev.caravan.it.StreamRecorder;
import dev.caravan.policies.Worker;
import dev.caravan.processors.config.CoreFlags;

/**
 * Chaos: a worker is removed ({@code DELETE /workers/{id}}) while 100 long streams run. New requests stop going to it at
 * once; none of its streams is cut; its in-flight count returns to zero as they finish.
 */
class DrainIT {

    @RegisterExtension
    static final SimFleetExtension SIMS = new SimFleetExtension(4, b -> b.decodeMsPerToken(100).defaultMaxTokens(80));

    @Test
    void removingAWorkerDuringLongStreamsCutsNone() throws Exception {
        try (GatewayHarness gw = GatewayHarness.start(GatewayHarness.config(SIMS.urls())
                .with(CoreFlags.DECISION_HEADERS, "true")
                .with(CoreFlags.POLICY_NAME, "round_robin"));
             StreamRecorder client = new StreamRecorder(gw.port())) {
            Worker drained = gw.workers().findByUrl(SIMS.engine(0).url()).orElseThrow();
            List<StreamRecorder.Stream> streams = client.send(100, "/v1/chat/completions", body());
            await().atMost(Duration.ofSeconds(30)).until(() -> streams.stream()
                    .filter(s -> s.headReceived && drained.url().equals(s.worker)).count() == 25);
            int inFlightAtRemoval = drained.load();

            assertThat(gw.client().delete("/workers/" + drained.id()).statusCode()).isEqualTo(202);
            List<StreamRecorder.Stream> after = client.send(20, "/v1/chat/completions", body());
            assertThat(client.awaitAll(Duration.ofSeconds(60))).isTrue();

            assertThat(streams).as("streams running during the removal").allSatisfy(s ->
                    assertThat(s.completed()).as(s.toString()).isTrue());
            assertThat(streams.stream().filter(s -> drained.url().equals(s.worker))).hasSize(25);
            assertThat(after).allSatisfy(s -> {
                assertThat(s.completed()).isTrue();
                assertThat(s.worker).isNotEqualTo(drained.url());
            });
            assertThat(drained.load()).as("the removed worker's in-flight count").isZero();
            assertThat(gw.workers().all()).doesNotContain(drained);

            Map<String, Object> figures = new LinkedHashMap<>();
            figures.put("streams", 100);
            figures.put("on_removed_worker", inFlightAtRemoval);
            figures.put("cut", streams.stream().filter(s -> !s.completed()).count());
            figures.put("new_requests_to_removed", after.stream().filter(s -> drained.url().equals(s.worker)).count());
            ChaosReport.record("drain", figures);
        }
    }

    private static String body() {
        return GatewayClient.json(Map.of("stream", true, "messages",
                List.of(Map.of("role", "user", "content", "A long story, please."))));
    }
}
