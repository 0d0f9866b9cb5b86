package dev.caravan.processors.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.builder.TemplatedRouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

import dev.caravan.policies.Worker;
import dev.caravan.policies.kv.KvBlockIndex;
import dev.caravan.processors.zeromq.ZeroMqConfiguration;

/**
 * The per-worker route template proposed in docs/kv-events.md (Java DSL here, YAML there): instantiated when a worker
 * with a KV-event endpoint joins, removed when it leaves.
 */
class KvEventRouteTemplateTest {

    private final ZContext zmq = new ZContext(1);
    private final DefaultCamelContext camel = new DefaultCamelContext();
    private final KvBlockIndex index = new KvBlockIndex();
    private final KvEventIngestor ingestor = new KvEventIngestor(List.of(index), Duration.ofSeconds(5), System::nanoTime);

    @AfterEach
    void tearDown() {
        camel.stop();
        ingestor.close();
        zmq.close();
    }

    @Test
    void instantiatesOneRoutePerWorkerAndRemovesItWhenTheWorkerLeaves() throws Exception {
        camel.getRegistry().bind("decodeKvBatch", new DecodeKvBatchProcessor(ingestor));
        camel.getRegistry().bind("applyKvEvents", new ApplyKvEventsProcessor(ingestor));
        camel.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                routeTemplate("kv-events").templateParameter("workerId").templateParameter("endpoint")
                        .templateParameter("topics", "")
                        .from("zeromq:sub:{{endpoint}}?topics={{topics}}")
                        .setProperty(KvExchangeProperties.WORKER_ID, constant("{{workerId}}"))
                        .process("decodeKvBatch")
                        .process("applyKvEvents");
            }
        });
        camel.start();
        ZMQ.Socket pub = zmq.createSocket(SocketType.PUB);
        pub.setLinger(0);
        pub.setHandshakeIvl((int) ZeroMqConfiguration.DEFAULT_HANDSHAKE_INTERVAL_MS);
        pub.bind("tcp://127.0.0.1:*");
        Worker worker = Worker.builder("http://engine-a:8000").id("engine-a").modelId("m")
                .kvEventsEndpoint(pub.getLastEndpoint()).build();

        // What the worker listener will do on registration:
        ingestor.register(worker);
        String routeId = TemplatedRouteBuilder.builder(camel, "kv-events").routeId("kv-events-" + worker.id())
                .parameter("workerId", worker.id()).parameter("endpoint", worker.kvEventsEndpoint()).add();

        long[] seq = {0};
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20)).pollInSameThread().until(() -> {
            pub.send("".getBytes(StandardCharsets.UTF_8), ZMQ.SNDMORE);
            pub.send(KvEventDecoder.sequenceFrame(seq[0]++), ZMQ.SNDMORE);
            pub.send(KvTestPayloads.stored(0, 77), 0);
            return index.contains("m", "engine-a", 77);
        });
        assertThat(routeId).isEqualTo("kv-events-engine-a");

        // ... and on removal:
        camel.getRouteController().stopRoute(routeId);
        camel.removeRoute(routeId);
        ingestor.unregister(worker.id());
        index.removeWorker(worker.id());

        assertThat(camel.getRoute(routeId)).isNull();
        assertThat(index.residentBlocks("engine-a")).isZero();
    }
}
