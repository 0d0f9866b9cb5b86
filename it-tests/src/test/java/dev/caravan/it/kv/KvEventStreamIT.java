package dev.caravan.it.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

import dev.caravan.it.GatewayClient;
import dev.caravan.it.GatewayHarness;
import dev.caravan.it.KvFixtures;
import dev.caravan.it.MetricsText;
import dev.caravan.policies.Worker;
import dev.caravan.policies.kv.BlockKeys;
import dev.caravan.policies.kv.KvBlockIndex;
import dev.caravan.policies.kv.KvTier;
import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.kv.KvFeature;
import dev.caravan.processors.kv.KvRouteManager;
import dev.caravan.processors.kv.KvWorkerStats;
import dev.caravan.sim.Faults;
import dev.caravan.sim.SimConfig;
import dev.caravan.sim.SimEngine;
import dev.caravan.sim.kv.KvEvent;
import dev.caravan.sim.kv.KvEventEncoder;
import dev.caravan.sim.kv.KvEventLayout;

/**
 * The KV-event stream end to end, over real ZeroMQ on loopback between simulated engines (or a test publisher) and the
 * gateway's per-worker routes built from {@code kv-events.camel.yaml}: lost batches are replayed, a restarted engine's
 * entries are dropped, garbage is skipped without stopping the route, both event layouts decode, a silent publisher
 * is flagged, and a removed worker takes its route and entries with it.
 */
class KvEventStreamIT {

    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final String MODEL = SimConfig.DEFAULT_MODEL;

    private static GatewayHarness gateway;
    private static KvFeature kv;
    private static KvBlockIndex index;

    @BeforeAll
    static void start() {
        gateway = GatewayHarness.start(GatewayHarness.config(List.of()).with(CoreFlags.POLICY_NAME, "kv_aware"));
        kv = gateway.gateway().beans().kv();
        index = kv.index();
    }

    @AfterAll
    static void stop() {
        gateway.close();
    }

    private static SimEngine engine(SimConfig.Builder b) {
        return SimEngine.start(KvFixtures.publishing(b).build());
    }

    private static int matched(String workerId, String prompt) {
        return KvFixtures.matched(index, workerId, prompt);
    }

    /** Slow joiner: direct requests until the gateway has applied one of the engine's batches. */
    private static void awaitSubscribed(SimEngine e, String workerId) {
        int[] n = {0};
        await().atMost(WAIT).pollInterval(Duration.ofMillis(100)).until(() -> {
            KvFixtures.complete(e.url(), MODEL, KvFixtures.prompt("probe-" + workerId + "-" + n[0]++, 1));
            KvWorkerStats s = kv.ingestor().stats(workerId);
            return s != null && s.batches() > 0;
        });
    }

    private static double metric(String name, String... labels) {
        return MetricsText.sample(gateway.client().get("/metrics").body(), name, labels);
    }

    @Test
    void batchesLostOnTheWireAreRecoveredByReplay() {
        try (SimEngine e = engine(SimConfig.builder())) {
            String id = KvFixtures.register(gateway.client(), e, MODEL);
            awaitSubscribed(e, id);
            String lost = KvFixtures.prompt("lost", 6);

            e.setFaults(Faults.NONE.merge(Map.of("drop_kv_events", true)));   // sequenced and buffered, not sent
            KvFixtures.complete(e.url(), MODEL, lost);
            assertThat(matched(id, lost)).isZero();
            e.resetFaults();
            KvFixtures.complete(e.url(), MODEL, KvFixtures.prompt("after-gap", 1));   // the next live batch: a gap

            await().atMost(WAIT).until(() -> matched(id, lost) == 6);
            KvWorkerStats s = kv.ingestor().stats(id);
            // one gap made by the fault (a heavily loaded machine has shown a second one); every gap is replayed (so is
            // a late join, when the subscription missed the engine's first batch), and nothing stays lost
            assertThat(s.gaps()).isBetween(1L, 2L);
            assertThat(s.replays()).isGreaterThanOrEqualTo(s.gaps());
            assertThat(s.replayedBatches()).isGreaterThanOrEqualTo(1);
            assertThat(s.unrecoveredBatches()).isZero();
            String w = "worker=\"" + e.url() + "\"";
            assertThat(metric("caravan_kv_gaps_total", w)).isEqualTo((double) s.gaps());
            assertThat(metric("caravan_kv_replayed_batches_total", w)).isEqualTo(s.replayedBatches());
        }
    }

    @Test
    void aRestartedEngineLosesItsEntries() {
        SimEngine first = engine(SimConfig.builder());
        String url = first.url();
        String events = first.kvEventsEndpoint();
        String replay = first.kvReplayEndpoint();
        String id = KvFixtures.register(gateway.client(), first, MODEL);
        String before = KvFixtures.prompt("before-restart", 4);
        try {
            awaitSubscribed(first, id);
            for (int i = 0; i < 10; i++) {   // the old publisher's sequence runs well ahead of a fresh one's
                KvFixtures.complete(url, MODEL, KvFixtures.prompt("old-" + i, 2));
            }
            KvFixtures.complete(url, MODEL, before);
            await().atMost(WAIT).until(() -> matched(id, before) == 4);
        } finally {
            first.close();
        }
        // Same HTTP port and KV ports (bound on all interfaces, as vLLM's tcp://*:5557), sequence from 0 again.
        try (SimEngine second = SimEngine.start(KvFixtures.publishing(SimConfig.builder()).port(first.port())
                .kvEventsEndpoint("tcp://*:" + port(events)).kvReplayEndpoint("tcp://*:" + port(replay)).build())) {
            int[] n = {0};
            await().atMost(WAIT).pollInterval(Duration.ofMillis(100)).until(() -> {
                KvFixtures.complete(second.url(), MODEL, KvFixtures.prompt("new-" + n[0]++, 1));
                return kv.ingestor().stats(id).restarts() > 0;
            });
            await().atMost(WAIT).until(() -> index.residentBlocks(id) > 0);
            assertThat(matched(id, before)).isZero();
            assertThat(metric("caravan_kv_restarts_total", "worker=\"" + url + "\"")).isEqualTo(1.0);
        }
    }

    private static String port(String endpoint) {
        return endpoint.substring(endpoint.lastIndexOf(':') + 1);
    }

    @Test
    void malformedMessagesAreCountedAndSkippedWhileTheRouteKeepsRunning() {
        try (ZContext zmq = new ZContext(1)) {
            ZMQ.Socket pub = zmq.createSocket(SocketType.PUB);
            pub.setLinger(0);
            pub.setHandshakeIvl(1000);
            pub.bind(KvFixtures.EPHEMERAL);
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("url", "http://127.0.0.1:9");
            body.put("model_id", MODEL);
            body.put("kv_events_endpoint", pub.getLastEndpoint());
            String id = GatewayClient.parse(gateway.client().postJson("/workers", GatewayClient.json(body)).body())
                    .path("worker_id").asText();
            KvEventEncoder encoder = new KvEventEncoder(KvEventLayout.MAP);
            long[] seq = {0};
            await().atMost(WAIT).pollInterval(Duration.ofMillis(20)).pollInSameThread().until(() -> {
                send(pub, seq[0]++, encoder.encode(1.0, List.of(stored(1L)), 0));
                return index.residentBlocks(id) > 0;
            });

            pub.send(new byte[0], ZMQ.SNDMORE);
            pub.send(new byte[] {1, 2, 3}, 0);                                  // 2 frames
            pub.send(new byte[0], ZMQ.SNDMORE);
            pub.send(new byte[] {1, 2, 3}, ZMQ.SNDMORE);                       // a 3-byte sequence
            pub.send(encoder.encode(1.0, List.of(stored(2L)), 0), 0);
            send(pub, seq[0], "not msgpack at all".getBytes(StandardCharsets.UTF_8));
            send(pub, seq[0]++, encoder.encode(1.0, List.of(stored(3L)), 0));

            await().atMost(WAIT).until(() -> holds(index, id, 3L));
            assertThat(holds(index, id, 2L)).isFalse();
            String w = "worker=\"http://127.0.0.1:9\"";
            assertThat(metric("caravan_kv_decode_errors_total", w, "reason=\"frame_count\"")).isEqualTo(1.0);
            assertThat(metric("caravan_kv_decode_errors_total", w, "reason=\"sequence\"")).isEqualTo(1.0);
            assertThat(metric("caravan_kv_decode_errors_total", w, "reason=\"payload\"")).isEqualTo(1.0);
            String route = KvRouteManager.ROUTE_PREFIX + id;
            assertThat(gateway.context().getRouteController().getRouteStatus(route).isStarted()).isTrue();
            gateway.client().delete("/workers/" + id);
        }
    }

    @Test
    void staticWorkersTakeTheirEndpointFromTheTemplate() {
        try (ZContext zmq = new ZContext(1)) {
            ZMQ.Socket pub = zmq.createSocket(SocketType.PUB);
            pub.setLinger(0);
            pub.bind(KvFixtures.EPHEMERAL);
            // --worker-urls are registered before the context starts: their routes wait for it, then subscribe
            try (GatewayHarness gw = GatewayHarness.start(GatewayHarness.config(List.of("http://127.0.0.1:9"))
                    .with(KvFeature.KV_EVENTS_ENDPOINT_TEMPLATE, "tcp://{host}:" + port(pub.getLastEndpoint())))) {
                Worker w = gw.workers().all().get(0);
                KvBlockIndex idx = gw.gateway().beans().kv().index();
                KvEventEncoder encoder = new KvEventEncoder(KvEventLayout.ARRAY);
                long[] seq = {0};
                await().atMost(WAIT).pollInterval(Duration.ofMillis(20)).pollInSameThread().until(() -> {
                    send(pub, seq[0]++, encoder.encode(1.0, List.of(stored(5L)), 0));
                    return holds(idx, w.id(), 5L);
                });
                assertThat(gw.context().getRoute(KvRouteManager.routeId(w))).isNotNull();
            }
        }
    }

    /** One block starting a sequence; its 16 tokens depend on its engine id {@code hash}. */
    private static KvEvent.BlockStored stored(long hash) {
        return new KvEvent.BlockStored(new long[] {hash}, null, tokensOf(hash), 16);
    }

    private static int[] tokensOf(long hash) {
        return IntStream.range(0, 16).map(i -> (int) hash * 100 + i).toArray();
    }

    /** Whether the gateway's index holds the block {@link #stored} as {@code hash} for the worker. */
    private static boolean holds(KvBlockIndex idx, String workerId, long hash) {
        return idx.holds(workerId, BlockKeys.keys(tokensOf(hash), 16, BlockKeys.PLAIN_ROOT)[0], KvTier.GPU);
    }

    private static void send(ZMQ.Socket pub, long sequence, byte[] payload) {
        pub.send(new byte[0], ZMQ.SNDMORE);
        pub.send(java.nio.ByteBuffer.allocate(8).putLong(sequence).array(), ZMQ.SNDMORE);
        pub.send(payload, 0);
    }

    @ParameterizedTest
    @EnumSource(KvEventLayout.class)
    void bothEventLayoutsDecodeEndToEnd(KvEventLayout layout) {
        try (SimEngine e = engine(SimConfig.builder().kvEventsLayout(layout))) {
            String id = KvFixtures.register(gateway.client(), e, MODEL);
            awaitSubscribed(e, id);
            String prompt = KvFixtures.prompt("layout-" + layout, 5);
            KvFixtures.complete(e.url(), MODEL, prompt);
            await().atMost(WAIT).until(() -> matched(id, prompt) == 5);
            await().atMost(WAIT).until(e::flushCache);
            await().atMost(WAIT).until(() -> index.residentBlocks(id) == 0);
            KvWorkerStats s = kv.ingestor().stats(id);
            assertThat(s.decodeErrors()).isZero();
            assertThat(s.skippedEvents()).isZero();
            assertThat(s.allBlocksClearedEvents()).isEqualTo(1);
        }
    }

    @Test
    void removingAWorkerRemovesItsRouteEntriesAndMeters() {
        try (SimEngine e = engine(SimConfig.builder())) {
            String id = KvFixtures.register(gateway.client(), e, MODEL);
            awaitSubscribed(e, id);
            String route = KvRouteManager.ROUTE_PREFIX + id;
            assertThat(gateway.context().getRoute(route)).isNotNull();
            assertThat(index.residentBlocks(id)).isPositive();

            assertThat(gateway.client().delete("/workers/" + id).statusCode()).isLessThan(300);

            await().atMost(WAIT).until(() -> gateway.context().getRoute(route) == null);
            await().atMost(WAIT).until(() -> index.residentBlocks(id) == 0 && kv.ingestor().stats(id) == null);
            assertThat(kv.routes().routeIds()).doesNotContain(route);
            assertThat(metric("caravan_kv_batches_total", "worker=\"" + e.url() + "\"")).isNaN();
        }
    }

    @Test
    void aServingWorkerWhosePublisherFallsSilentIsFlaggedOncePerEpisode() {
        try (SimEngine e = engine(SimConfig.builder());
             GatewayHarness gw = GatewayHarness.start(GatewayHarness.config(List.of())
                     .with(CoreFlags.POLICY_NAME, "round_robin").with(KvFeature.KV_SILENCE_THRESHOLD_SECS, "1"))) {
            String id = KvFixtures.register(gw.client(), e, MODEL);
            KvFeature gwKv = gw.gateway().beans().kv();
            int[] n = {0};
            await().atMost(WAIT).pollInterval(Duration.ofMillis(100)).until(() -> {
                KvFixtures.complete(e.url(), MODEL, KvFixtures.prompt("probe-silence-" + n[0]++, 1));
                return gwKv.ingestor().stats(id).batches() > 0;
            });
            String w = "worker=\"" + e.url() + "\"";
            e.setFaults(Faults.NONE.merge(Map.of("stop_kv_events", true)));

            await().atMost(WAIT).pollInterval(Duration.ofMillis(200)).until(() -> {
                KvFixtures.complete(gw.url(), MODEL, KvFixtures.prompt("served-" + n[0]++, 2));
                return MetricsText.sample(gw.client().get("/metrics").body(), "caravan_kv_publisher_silent", w) == 1.0;
            });
            e.resetFaults();
            KvFixtures.complete(gw.url(), MODEL, KvFixtures.prompt("back-" + n[0]++, 2));
            await().atMost(WAIT).until(() ->
                    MetricsText.sample(gw.client().get("/metrics").body(), "caravan_kv_publisher_silent", w) == 0.0);
            assertThat(MetricsText.sample(gw.client().get("/metrics").body(), "caravan_kv_last_event_age_seconds", w))
                    .isLessThan(1.0);
        }
    }
}
