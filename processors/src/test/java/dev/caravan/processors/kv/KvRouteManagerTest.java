package dev.caravan.processors.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

import dev.caravan.components.zeromq.ZeroMqConfiguration;
import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerRegistry;
import dev.caravan.policies.kv.KvBlockIndex;
import dev.caravan.policies.kv.KvTier;
import dev.caravan.processors.CaravanExchangeProperties;

/**
 * {@link KvRouteManager} with the route template of {@code routes/kv-events.camel.yaml} (Java DSL twin here; the YAML
 * itself runs in the routes module and the integration tests): a worker with an endpoint gets its route when the
 * context has started, loses it when it leaves, and takes its index entries and meters with it.
 */
class KvRouteManagerTest {

    private static final Duration WAIT = Duration.ofSeconds(10);

    private final ZContext zmq = new ZContext(1);
    private final DefaultCamelContext camel = new DefaultCamelContext();
    private final KvBlockIndex index = new KvBlockIndex();
    private final KvEventIngestor ingestor = new KvEventIngestor(index, List.of(), Duration.ofSeconds(5),
            System::nanoTime);
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final WorkerRegistry workers = new WorkerRegistry();
    private final List<String> forgotten = new ArrayList<>();
    private KvRouteManager manager;
    private ZMQ.Socket pub;

    @BeforeEach
    void setUp() throws Exception {
        camel.getRegistry().bind("decodeKvBatch", new DecodeKvBatchProcessor(ingestor));
        camel.getRegistry().bind("applyKvEvents", new ApplyKvEventsProcessor(ingestor));
        camel.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                routeTemplate(KvRouteManager.TEMPLATE_ID).templateParameter("workerId").templateParameter("endpoint")
                        .templateParameter("topics", "").templateParameter("rank", "0")
                        .from("zeromq:sub:{{endpoint}}?topics={{topics}}")
                        .setProperty(CaravanExchangeProperties.KV_WORKER_ID.name(), constant("{{workerId}}"))
                        .setProperty(CaravanExchangeProperties.KV_RANK.name(), constant("{{rank}}"))
                        .process("decodeKvBatch")
                        .process("applyKvEvents");
            }
        });
        KvMetrics metrics = new KvMetrics(meters, ingestor, index, null, null, System::nanoTime);
        manager = new KvRouteManager(KvSettings.defaults(), ingestor, metrics,
                List.of(index::removeWorker, id -> {
                    synchronized (forgotten) {
                        forgotten.add(id);
                    }
                }));
        workers.addListener(manager);
        pub = zmq.createSocket(SocketType.PUB);
        pub.setLinger(0);
        pub.setHandshakeIvl((int) ZeroMqConfiguration.DEFAULT_HANDSHAKE_INTERVAL_MS);
        pub.bind("tcp://127.0.0.1:*");
    }

    @AfterEach
    void tearDown() {
        manager.close();
        camel.stop();
        ingestor.close();
        zmq.close();
    }

    @Test
    void createsAWorkersRouteOnceTheContextRunsAndRemovesItWithItsStateWhenItLeaves() {
        Worker worker = workers.add(Worker.builder("http://engine-a:8000").id("engine-a").modelId("m")
                .kvEventsEndpoint(pub.getLastEndpoint()).build());
        Worker silent = workers.add(Worker.builder("http://engine-b:8000").id("engine-b").build());
        camel.start();
        manager.start(camel);

        String routeId = KvRouteManager.routeId(worker);
        await().atMost(WAIT).until(() -> camel.getRoute(routeId) != null);
        long[] seq = {0};
        await().atMost(WAIT).pollInterval(Duration.ofMillis(20)).pollInSameThread().until(() -> {
            pub.send("".getBytes(StandardCharsets.UTF_8), ZMQ.SNDMORE);
            pub.send(KvEventDecoder.sequenceFrame(seq[0]++), ZMQ.SNDMORE);
            pub.send(KvTestPayloads.stored(0, 77), 0);
            return index.holds("engine-a", KvTestPayloads.key(77), KvTier.GPU);
        });
        assertThat(manager.routeIds()).containsExactly("kv-events-engine-a");
        assertThat(camel.getRoute(KvRouteManager.routeId(silent))).isNull();
        // the event counts are bumped after the index applies the batch: wait for them too
        await().atMost(WAIT).untilAsserted(() -> assertThat(meters.find("caravan.kv.events")
                .tag("worker", worker.url()).tag("type", "BlockStored").functionCounter().count())
                .isGreaterThanOrEqualTo(1));

        workers.remove(worker.id());

        await().atMost(WAIT).until(() -> camel.getRoute(routeId) == null && forgotten.contains("engine-a"));
        assertThat(index.residentBlocks("engine-a")).isZero();
        assertThat(ingestor.stats("engine-a")).isNull();
        assertThat(meters.find("caravan.kv.events").tag("worker", worker.url()).functionCounters()).isEmpty();
        assertThat(manager.routeIds()).isEmpty();
    }

    @Test
    void triesARefusedRouteAgainUntilCamelCreatesIt() {
        camel.start();
        manager.start(camel);
        Object decode = camel.getRegistry().lookupByName("decodeKvBatch");
        camel.getRegistry().unbind("decodeKvBatch"); // the route cannot be created: its processor is missing
        Worker worker = workers.add(Worker.builder("http://engine-r:8000").id("engine-r")
                .kvEventsEndpoint(pub.getLastEndpoint()).build());
        await().atMost(WAIT).until(() -> manager.failedAttempts() >= 1);
        assertThat(camel.getRoute(KvRouteManager.routeId(worker))).isNull();

        camel.getRegistry().bind("decodeKvBatch", decode);

        // the manager records the route once Camel has created it: wait for both
        await().atMost(WAIT).until(() -> camel.getRoute(KvRouteManager.routeId(worker)) != null
                && manager.routeIds().contains("kv-events-engine-r"));
        assertThat(manager.routeIds()).containsExactly("kv-events-engine-r");
        assertThat(ingestor.stats("engine-r")).isNotNull();
    }

    @Test
    void workersAddedAfterStartGetTheirRouteAtOnce() {
        camel.start();
        manager.start(camel);
        Worker worker = workers.add(Worker.builder("http://engine-c:8000").id("engine-c")
                .kvEventsEndpoint(pub.getLastEndpoint()).build());

        // the route is added, then started: wait for both ("started" right after "exists" raced on a busy machine)
        await().atMost(WAIT).until(() -> camel.getRoute(KvRouteManager.routeId(worker)) != null
                && camel.getRouteController().getRouteStatus("kv-events-engine-c").isStarted());
        assertThat(manager.routeIds()).containsExactly("kv-events-engine-c");
    }

    @Test
    void subscribesToEveryDataParallelRankOnTheOffsetPorts() {
        try (ZContext ctx = new ZContext(1)) {
            ZMQ.Socket rank1 = null;
            while (rank1 == null) { // rank r publishes on port + r: find a port whose successor is free too
                int port = Integer.parseInt(pub.getLastEndpoint().replaceAll(".*:", ""));
                ZMQ.Socket s = ctx.createSocket(SocketType.PUB);
                s.setLinger(0);
                try {
                    s.bind("tcp://127.0.0.1:" + (port + 1));
                    rank1 = s;
                } catch (RuntimeException e) {
                    s.close();
                    pub.close();
                    pub = zmq.createSocket(SocketType.PUB);
                    pub.setLinger(0);
                    pub.bind("tcp://127.0.0.1:*");
                }
            }
            camel.start();
            manager.start(camel);
            Worker worker = workers.add(Worker.builder("http://engine-d:8000").id("engine-d")
                    .kvEventsEndpoint(pub.getLastEndpoint()).build());
            await().atMost(WAIT).until(() -> manager.routeIds().contains("kv-events-engine-d"));

            worker.setDataParallelSize(2);
            manager.ensureRanks(worker);

            await().atMost(WAIT).until(() -> camel.getRoute("kv-events-engine-d-dp1") != null
                    && camel.getRouteController().getRouteStatus("kv-events-engine-d-dp1").isStarted());
            ZMQ.Socket publisher = rank1;
            long[] seq = {0};
            await().atMost(WAIT).pollInterval(Duration.ofMillis(20)).pollInSameThread().until(() -> {
                publisher.send("".getBytes(StandardCharsets.UTF_8), ZMQ.SNDMORE);
                publisher.send(KvEventDecoder.sequenceFrame(seq[0]++), ZMQ.SNDMORE);
                publisher.send(KvTestPayloads.storedWithoutRank(88), 0); // an older SGLang names no rank
                return index.holds("engine-d", KvTestPayloads.key(88), KvTier.GPU);
            });
            assertThat(index.longestPrefixes(KvTestPayloads.keys(88), 1, 1).match("engine-d").rank()).isEqualTo(1);

            workers.remove(worker.id());
            await().atMost(WAIT).until(() -> camel.getRoute("kv-events-engine-d-dp1") == null
                    && camel.getRoute("kv-events-engine-d") == null);
            assertThat(manager.routeIds()).isEmpty();
        }
    }
}
