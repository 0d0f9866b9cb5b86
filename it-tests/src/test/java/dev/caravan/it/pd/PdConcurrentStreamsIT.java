package dev.caravan.it.pd;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.caravan.it.GatewayClient;
import dev.caravan.it.GatewayHarness;
import dev.caravan.it.PdFleetExtension;
import dev.caravan.it.request.ConcurrentStreams;
import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerRole;

/**
 * Hundreds of P/D streams at once hold no thread each: the multicast's thread pool only starts the legs, the legs and
 * the relay run on the event loops. The whole JVM (engines, gateway, the non-blocking test client) is sampled while
 * the streams are open ({@link ConcurrentStreams}).
 */
class PdConcurrentStreamsIT {

    private static final int STREAMS = 400;
    /** Far below one thread per stream (or two per P/D request); the idle JVM has about 60-80. */
    private static final int MAX_THREADS = 200;

    /** 8 tokens one second apart: every stream stays open ~8 s, long enough for all of them to overlap. */
    @RegisterExtension
    static final PdFleetExtension PD = new PdFleetExtension(2, 2,
            b -> b.maxRunning(STREAMS).decodeMsPerToken(1000).defaultMaxTokens(8));

    @Test
    void hundredsOfConcurrentPdStreamsNeedFarFewerThreads() throws Exception {
        try (GatewayHarness gateway = GatewayHarness.start(PD.gatewayConfig())) {
            ConcurrentStreams.Result r = ConcurrentStreams.run(gateway.port(), STREAMS,
                    PdConcurrentStreamsIT::requestBody, () -> gateway.workers().all().stream()
                            .filter(w -> w.role() == WorkerRole.DECODE).mapToInt(Worker::load).sum(), 90);
            System.out.printf("PdConcurrentStreamsIT: streams=%d completed=%d peakDecodeInFlight=%d "
                    + "peakJvmThreads=%d%n", STREAMS, r.completed(), r.peakInFlight(), r.peakThreads());
            assertThat(r.ended()).as("all streams ended").isTrue();
            assertThat(r.completed()).isEqualTo(STREAMS);
            assertThat(r.peakInFlight()).as("decode streams in flight through the gateway at once")
                    .isGreaterThanOrEqualTo(STREAMS * 9 / 10);
            assertThat(r.peakThreads()).as("JVM threads while they were open").isLessThan(MAX_THREADS);
            assertThat(gateway.workers().all()).allSatisfy(w -> assertThat(w.load()).isZero());
        }
    }

    private static String requestBody(int i) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("model", PD.model());
        body.put("stream", true);
        body.put("messages", List.of(Map.of("role", "user", "content", "Count the camels, caravan " + i + ".")));
        return GatewayClient.json(body);
    }
}
