package dev.caravan.routes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.camel.builder.NotifyBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

import dev.caravan.components.zeromq.ZeroMqConfiguration;
import dev.caravan.policies.Worker;
import dev.caravan.policies.kv.KvBlockIndex;
import dev.caravan.policies.kv.KvTier;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.kv.KvDecodeException.Reason;
import dev.caravan.processors.kv.KvEventDecoder;
import dev.caravan.processors.kv.KvEventIngestor;
import dev.caravan.processors.kv.KvRouteManager;
import dev.caravan.processors.kv.KvTestPayloads;
import dev.caravan.processors.kv.KvWorkerStats;
import dev.caravan.processors.kv.ReplayServer;

/**
 * A worker's KV-event route (the {@code kv-events} template of kv-events.camel.yaml, made by the gateway when the worker
 * registers: zeromq SUB, decodeKvBatch, applyKvEvents) on a real PUB socket: malformed messages are counted and skipped
 * while the route keeps running, and, with a real replay ROUTER, a batch whose sequence skips some is preceded by the
 * missing ones, asked of the replay endpoint from the first missing sequence.
 */
class KvEventsRouteTest extends GatewayRouteTestSupport {

    private static final String TOPIC = "kv@w1@m";
    private static final int BUFFERED = 200;

    private final ZContext zmq = new ZContext(1);
    private ReplayServer replay;

    @Override
    protected GatewayConfig config() {
        return baseConfig();
    }

    @AfterEach
    void closeSockets() throws Exception {
        if (replay != null) {
            replay.close();
        }
        zmq.close();
    }

    private ZMQ.Socket publisher() {
        ZMQ.Socket pub = zmq.createSocket(SocketType.PUB);
        pub.setLinger(0);
        pub.setHandshakeIvl((int) ZeroMqConfiguration.DEFAULT_HANDSHAKE_INTERVAL_MS);
        pub.bind("tcp://127.0.0.1:*");
        return pub;
    }

    /** Batch {@code s} of the gap test: one block, id {@code 1000 + s}, live and in the replay buffer alike. */
    private static byte[] batch(long seq) {
        return KvTestPayloads.stored(0, 1000 + seq);
    }

    private static void publish(ZMQ.Socket pub, long seq) {
        publish(pub, seq, batch(seq));
    }

    private static void publish(ZMQ.Socket pub, long seq, byte[] payload) {
        pub.send(TOPIC.getBytes(StandardCharsets.UTF_8), ZMQ.SNDMORE);
        pub.send(KvEventDecoder.sequenceFrame(seq), ZMQ.SNDMORE);
        pub.send(payload, 0);
    }

    @Test
    void malformedMessagesAreCountedAndSkippedWhileTheRouteKeepsApplyingBatches() {
        ZMQ.Socket pub = publisher();
        Worker w1 = gateway.workers().add(Worker.builder("http://127.0.0.1:9").id("w1").modelId("m")
                .kvEventsEndpoint(pub.getLastEndpoint()).build());
        KvBlockIndex index = gateway.beans().kv().index();
        KvEventIngestor ingestor = gateway.beans().kv().ingestor();
        long[] seq = {0};
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20)).pollInSameThread().until(() -> {
            publish(pub, seq[0]++, KvTestPayloads.stored(0, 999));
            return ingestor.stats("w1").batches() > 0;
        });

        publish(pub, seq[0]++, KvTestPayloads.stored(0, 1, 2, 3));
        publish(pub, seq[0], Arrays.copyOf(KvTestPayloads.stored(0, 1, 2, 3), 12)); // PAYLOAD error, no sequence used
        pub.send(TOPIC.getBytes(StandardCharsets.UTF_8), ZMQ.SNDMORE);
        pub.send(new byte[] {1, 2, 3}, 0);                                         // 2 frames: FRAME_COUNT error
        publish(pub, seq[0]++, KvTestPayloads.removed(0, 2));

        await().atMost(Duration.ofSeconds(10)).until(() -> ingestor.stats("w1").blockRemovedEvents() == 1);
        KvWorkerStats s = ingestor.stats("w1");
        assertThat(s.decodeErrors(Reason.PAYLOAD)).isEqualTo(1);
        assertThat(s.decodeErrors(Reason.FRAME_COUNT)).isEqualTo(1);
        assertThat(s.gaps()).isZero();
        assertThat(index.longestPrefixes(KvTestPayloads.keys(1, 2, 3), 1, 1).matched("w1")).isEqualTo(1);
        assertThat(index.holds("w1", KvTestPayloads.key(1, 2, 3), KvTier.GPU)).isTrue(); // held, but past a gap
        assertThat(index.residentBlocks("w1")).isEqualTo(3); // 1, 3 and the probe 999
        assertThat(context.getRouteController().getRouteStatus(KvRouteManager.routeId(w1)).isStarted()).isTrue();
    }

    @Test
    void aSequenceGapIsReplayedFromTheFirstMissingBatchBeforeTheLiveOneIsApplied() throws Exception {
        Map<Long, byte[]> buffered = new HashMap<>();
        for (long s = 0; s < BUFFERED; s++) {
            buffered.put(s, batch(s));
        }
        replay = new ReplayServer(ReplayServer.Layout.WITHOUT_TOPIC, TOPIC, buffered);
        ZMQ.Socket pub = publisher();
        Worker w1 = gateway.workers().add(Worker.builder("http://127.0.0.1:9").id("w1").modelId("m")
                .kvEventsEndpoint(pub.getLastEndpoint()).kvReplayEndpoint(replay.endpoint()).build());
        KvBlockIndex index = gateway.beans().kv().index();
        KvEventIngestor ingestor = gateway.beans().kv().ingestor();
        // slow joiner: consecutive batches until one arrives; those before it are replayed, so all are applied
        long[] next = {0};
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20)).pollInSameThread().until(() -> {
            publish(pub, next[0]++);
            return index.residentBlocks("w1") > 0;
        });
        long n = next[0];
        await().atMost(Duration.ofSeconds(10)).until(() -> index.residentBlocks("w1") == n);
        long gaps = ingestor.stats("w1").gaps();
        long replayed = ingestor.stats("w1").replayedBatches();
        NotifyBuilder applied = new NotifyBuilder(context).fromRoute(KvRouteManager.routeId(w1)).whenDone(1).create();

        publish(pub, n + 3);

        assertThat(applied.matches(10, TimeUnit.SECONDS)).isTrue();
        KvWorkerStats after = ingestor.stats("w1");
        assertThat(replay.requestedStarts()).last().isEqualTo(n);
        assertThat(after.gaps() - gaps).isEqualTo(1);
        assertThat(after.replayedBatches() - replayed).isEqualTo(3);
        assertThat(index.residentBlocks("w1")).isEqualTo(n + 4);
        for (long s : List.of(n, n + 1, n + 2, n + 3)) {
            assertThat(index.holds("w1", KvTestPayloads.key(1000 + s), KvTier.GPU)).as("block of batch %d", s).isTrue();
        }
    }
}
