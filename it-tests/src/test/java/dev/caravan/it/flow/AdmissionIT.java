package dev.caravan.it.flow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.caravan.it.GatewayHarness;
import dev.caravan.it.RawHttpStream;
import dev.caravan.it.SimFleetExtension;
import dev.caravan.it.StreamRecorder;
import dev.caravan.processors.admission.AdmissionController;
import dev.caravan.processors.flow.FlowFeature;
import dev.caravan.sim.Faults;

/**
 * SGLang's queue test ({@code sgl-model-gateway/tests/reliability/rate_limiting_test.rs}) with exact counts:
 * --max-concurrent-requests 2, a queue of 5, ten requests at once.
 */
class AdmissionIT {

    @RegisterExtension
    static final SimFleetExtension SIMS = new SimFleetExtension(1, b -> b.decodeMsPerToken(1).defaultMaxTokens(2));

    private static final String BODY = "{\"prompt\":\"wait your turn\"}";

    private static Map<Integer, Long> statuses(List<StreamRecorder.Stream> streams) {
        return streams.stream().collect(Collectors.groupingBy(s -> s.status, TreeMap::new, Collectors.counting()));
    }

    @Test
    void twoRunFiveWaitUntilTheQueueTimeoutAndTheRestAre429() throws Exception {
        SIMS.engine(0).setFaults(Faults.NONE.merge(Map.of("added_latency_ms", 3000)));
        try (GatewayHarness gw = GatewayHarness.start(GatewayHarness.config(SIMS.urls())
                .with(FlowFeature.MAX_CONCURRENT_REQUESTS, "2").with(FlowFeature.QUEUE_SIZE, "5")
                .with(FlowFeature.QUEUE_TIMEOUT_SECS, "1"));
             StreamRecorder client = new StreamRecorder(gw.port())) {
            List<StreamRecorder.Stream> burst = client.send(10, "/v1/completions", BODY);
            assertThat(client.awaitAll(Duration.ofSeconds(30))).isTrue();

            assertThat(statuses(burst)).containsExactlyEntriesOf(new TreeMap<>(Map.of(200, 2L, 408, 5L, 429, 3L)));
            assertThat(burst.stream().filter(s -> s.status == 429).map(StreamRecorder.Stream::body))
                    .allSatisfy(b -> assertThat(b).contains("\"code\":\"queue_full\""));
            assertThat(burst.stream().filter(s -> s.status == 408).map(StreamRecorder.Stream::body))
                    .allSatisfy(b -> assertThat(b).contains("\"code\":\"queue_timeout\""));
            assertIdle(gw);
            assertThat(SIMS.engine(0).stats().requests()).as("only admitted requests reached the engine")
                    .isGreaterThanOrEqualTo(2);
        } finally {
            SIMS.resetFaults();
        }
    }

    @Test
    void queuedRequestsAreServedAsSlotsFree() throws Exception {
        SIMS.engine(0).setFaults(Faults.NONE.merge(Map.of("added_latency_ms", 300)));
        try (GatewayHarness gw = GatewayHarness.start(GatewayHarness.config(SIMS.urls())
                .with(FlowFeature.MAX_CONCURRENT_REQUESTS, "2").with(FlowFeature.QUEUE_SIZE, "5")
                .with(FlowFeature.QUEUE_TIMEOUT_SECS, "30"));
             StreamRecorder client = new StreamRecorder(gw.port())) {
            List<StreamRecorder.Stream> burst = client.send(10, "/v1/completions", BODY);
            assertThat(client.awaitAll(Duration.ofSeconds(30))).isTrue();

            assertThat(statuses(burst)).containsExactlyEntriesOf(new TreeMap<>(Map.of(200, 7L, 429, 3L)));
            assertIdle(gw);
            assertThat(gw.gateway().beans().meterRegistry().find("caravan.admission.admitted").tag("path", "queued")
                    .counter().count()).isEqualTo(5);
        } finally {
            SIMS.resetFaults();
        }
    }

    @Test
    void aClientThatHangsUpWhileQueuedLeavesTheQueue() {
        SIMS.engine(0).setFaults(Faults.NONE.merge(Map.of("added_latency_ms", 2000)));
        try (GatewayHarness gw = GatewayHarness.start(GatewayHarness.config(SIMS.urls())
                .with(FlowFeature.MAX_CONCURRENT_REQUESTS, "1").with(FlowFeature.QUEUE_SIZE, "5"));
             StreamRecorder client = new StreamRecorder(gw.port())) {
            AdmissionController admission = gw.gateway().beans().flow().admission();
            List<StreamRecorder.Stream> running = client.send(1, "/v1/completions", BODY);
            await().atMost(Duration.ofSeconds(10)).until(() -> admission.slotsInUse() == 1);
            RawHttpStream queued = RawHttpStream.post(gw.port(), "/v1/completions", BODY);
            await().atMost(Duration.ofSeconds(10)).until(() -> admission.queued() == 1);

            queued.close();

            await().atMost(Duration.ofSeconds(10)).until(() -> admission.queued() == 0);
            assertThat(gw.gateway().beans().meterRegistry().find("caravan.admission.rejected")
                    .tag("reason", "client_gone").counter().count()).isEqualTo(1);
            await().atMost(Duration.ofSeconds(10)).until(() -> running.get(0).ended);
            assertThat(running.get(0).status).isEqualTo(200);
            assertIdle(gw);
        } finally {
            SIMS.resetFaults();
        }
    }

    private static void assertIdle(GatewayHarness gw) {
        AdmissionController admission = gw.gateway().beans().flow().admission();
        await().atMost(Duration.ofSeconds(5)).until(() -> admission.inFlight() == 0);
        assertThat(admission.slotsInUse()).isZero();
        assertThat(admission.queued()).isZero();
        assertThat(gw.workers().all()).allSatisfy(w -> assertThat(w.load()).isZero());
    }
}
