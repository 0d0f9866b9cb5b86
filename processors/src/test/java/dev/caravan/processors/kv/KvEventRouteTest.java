package dev.caravan.processors.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

import dev.caravan.components.zeromq.ZeroMqConfiguration;
import dev.caravan.policies.Worker;
import dev.caravan.policies.kv.KvBlockIndex;
import dev.caravan.policies.kv.KvTier;
import dev.caravan.processors.CaravanExchangeProperties;
import dev.caravan.processors.kv.KvDecodeException.Reason;

/**
 * The per-worker route (docs/design/kv-events.md, "The per-rank route") on a real PUB socket: zeromq SUB → decodeKvBatch →
 * applyKvEvents, with malformed messages in the stream.
 */
class KvEventRouteTest {

    private static final String MODEL = "m";
    private final ZContext zmq = new ZContext(1);
    private final DefaultCamelContext camel = new DefaultCamelContext();
    private final KvBlockIndex index = new KvBlockIndex();
    private final KvEventIngestor ingestor = new KvEventIngestor(index, List.of(), Duration.ofSeconds(5),
            System::nanoTime);
    private ZMQ.Socket pub;
    private long seq;

    @AfterEach
    void tearDown() {
        camel.stop();
        ingestor.close();
        zmq.close();
    }

    private void publish(long sequence, byte[] payload) {
        pub.send("kv@w1@m".getBytes(StandardCharsets.UTF_8), ZMQ.SNDMORE);
        pub.send(KvEventDecoder.sequenceFrame(sequence), ZMQ.SNDMORE);
        pub.send(payload, 0);
    }

    @Test
    void appliesEventsFromTheWireAndSkipsMalformedMessagesWithoutStopping() throws Exception {
        pub = zmq.createSocket(SocketType.PUB);
        pub.setLinger(0);
        pub.setHandshakeIvl((int) ZeroMqConfiguration.DEFAULT_HANDSHAKE_INTERVAL_MS);
        pub.bind("tcp://127.0.0.1:*");
        ingestor.register(Worker.builder("http://w1:8000").id("w1").modelId(MODEL).build());
        String uri = "zeromq:sub:" + pub.getLastEndpoint() + "?topics=kv@w1@";
        camel.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from(uri).routeId("kv-events-w1")
                        .setProperty(CaravanExchangeProperties.KV_WORKER_ID.name(), constant("w1"))
                        .process(new DecodeKvBatchProcessor(ingestor))
                        .process(new ApplyKvEventsProcessor(ingestor));
            }
        });
        camel.start();
        // Slow joiner: publish consecutive probe batches until one is applied.
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20)).pollInSameThread().until(() -> {
            publish(seq++, KvTestPayloads.stored(0, 999));
            return ingestor.stats("w1").batches() > 0;
        });

        publish(seq++, KvTestPayloads.stored(0, 1, 2, 3));
        byte[] truncated = Arrays.copyOf(KvTestPayloads.stored(0, 1, 2, 3), 12);
        publish(seq, truncated);                                   // PAYLOAD error, not counted as a sequence
        pub.send("kv@w1@m".getBytes(StandardCharsets.UTF_8), ZMQ.SNDMORE);
        pub.send(new byte[] {1, 2, 3}, 0);                        // 2 frames: FRAME_COUNT error
        publish(seq++, KvTestPayloads.removed(0, 2));

        await().atMost(Duration.ofSeconds(10)).until(() -> ingestor.stats("w1").blockRemovedEvents() == 1);
        KvWorkerStats s = ingestor.stats("w1");
        assertThat(s.decodeErrors(Reason.PAYLOAD)).isEqualTo(1);
        assertThat(s.decodeErrors(Reason.FRAME_COUNT)).isEqualTo(1);
        assertThat(s.gaps()).isZero();
        assertThat(index.longestPrefixes(KvTestPayloads.keys(1, 2, 3), 1, 1).matched("w1")).isEqualTo(1);
        assertThat(index.holds("w1", KvTestPayloads.key(1, 2, 3), KvTier.GPU)).isTrue(); // held, but past a gap
        assertThat(index.residentBlocks("w1")).isEqualTo(3); // 1, 3 and the probe 999
        assertThat(camel.getRouteController().getRouteStatus("kv-events-w1").isStarted()).isTrue();
    }
}
