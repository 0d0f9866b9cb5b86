package dev.caravan.components.zeromq;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.apache.camel.Exchange;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

class ZeroMqConsumerTest {

    private final ZContext zmq = new ZContext(1);
    private final List<Exchange> received = new CopyOnWriteArrayList<>();
    private DefaultCamelContext camel;

    @BeforeEach
    void setUp() {
        camel = new DefaultCamelContext();
    }

    @AfterEach
    void tearDown() {
        camel.stop();
        zmq.close();
    }

    private void route(String uri) throws Exception {
        route(uri, e -> received.add(e.copy()));
    }

    private void route(String uri, org.apache.camel.Processor p) throws Exception {
        camel.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from(uri).routeId("zmq").process(p);
            }
        });
        camel.start();
    }

    /** A test-side socket; a short handshake interval, as the component's, so JeroMQ's rare handshake stall heals fast. */
    private ZMQ.Socket socket(SocketType type) {
        ZMQ.Socket s = zmq.createSocket(type);
        s.setLinger(0);
        s.setHandshakeIvl((int) ZeroMqConfiguration.DEFAULT_HANDSHAKE_INTERVAL_MS);
        return s;
    }

    private ZMQ.Socket boundPub() {
        ZMQ.Socket pub = socket(SocketType.PUB);
        pub.bind("tcp://127.0.0.1:*");
        return pub;
    }

    private static void send(ZMQ.Socket socket, String... frames) {
        for (int i = 0; i < frames.length; i++) {
            socket.send(frames[i].getBytes(UTF_8), i < frames.length - 1 ? ZMQ.SNDMORE : 0);
        }
    }

    /**
     * Slow joiner: publishes probes until one arrives (the subscription has reached the publisher), then a sync message,
     * and returns once the sync arrived with the list cleared: ZeroMQ keeps per-connection order, so no probe can
     * arrive after that.
     */
    private void awaitJoined(ZMQ.Socket pub, String topicPrefix) {
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20)).pollInSameThread().until(() -> {
            send(pub, topicPrefix + "probe", "probe");
            return !received.isEmpty();
        });
        send(pub, topicPrefix + "sync", "sync");
        await().atMost(Duration.ofSeconds(10)).until(() -> received.stream()
                .anyMatch(e -> (topicPrefix + "sync").equals(e.getIn().getHeader(ZeroMqConstants.TOPIC))));
        received.clear();
    }

    private static List<String> strings(Exchange e) {
        @SuppressWarnings("unchecked")
        List<byte[]> frames = e.getIn().getBody(List.class);
        return frames.stream().map(b -> new String(b, UTF_8)).toList();
    }

    @Test
    void subConsumerDeliversEachMessageAsFrameListWithTopicAndFrameCount() throws Exception {
        ZMQ.Socket pub = boundPub();
        route("zeromq:sub:" + pub.getLastEndpoint());
        awaitJoined(pub, "kv@a@m");

        send(pub, "kv@a@m", "seq", "payload");

        await().atMost(Duration.ofSeconds(10)).until(() -> !received.isEmpty());
        Exchange e = received.get(0);
        assertThat(strings(e)).containsExactly("kv@a@m", "seq", "payload");
        assertThat(e.getIn().getHeader(ZeroMqConstants.TOPIC)).isEqualTo("kv@a@m");
        assertThat(e.getIn().getHeader(ZeroMqConstants.FRAME_COUNT)).isEqualTo(3);
        assertThat(e.getIn().getHeader(ZeroMqConstants.ADDRESS)).isEqualTo(pub.getLastEndpoint());
    }

    @Test
    void subConsumerReceivesOnlySubscribedTopicPrefixes() throws Exception {
        ZMQ.Socket pub = boundPub();
        route("zeromq:sub:" + pub.getLastEndpoint() + "?topics=kv@,x");
        awaitJoined(pub, "kv@");

        // ZeroMQ keeps per-connection order: once "kv@last" is here, "other" would have been delivered before it.
        send(pub, "other", "1");
        send(pub, "xylophone", "2");
        send(pub, "kv@last", "3");

        await().atMost(Duration.ofSeconds(10)).until(() -> received.size() == 2);
        assertThat(received).extracting(e -> e.getIn().getHeader(ZeroMqConstants.TOPIC))
                .containsExactly("xylophone", "kv@last");
    }

    @Test
    void lastFrameOnlyMakesTheBodyTheFinalFrame() throws Exception {
        ZMQ.Socket pub = boundPub();
        route("zeromq:sub:" + pub.getLastEndpoint() + "?lastFrameOnly=true");
        awaitJoined(pub, "t");

        send(pub, "t", "a", "the-payload");

        await().atMost(Duration.ofSeconds(10)).until(() -> !received.isEmpty());
        assertThat(received.get(0).getIn().getBody()).isInstanceOf(byte[].class);
        assertThat(new String(received.get(0).getIn().getBody(byte[].class), UTF_8)).isEqualTo("the-payload");
        assertThat(received.get(0).getIn().getHeader(ZeroMqConstants.FRAME_COUNT)).isEqualTo(3);
    }

    @Test
    void boundSubAcceptsConnectingPublishersOnAnEphemeralPort() throws Exception {
        route("zeromq:sub:tcp://127.0.0.1:*");
        ZeroMqConsumer consumer = (ZeroMqConsumer) camel.getRoute("zmq").getConsumer();
        String bound = consumer.boundAddress();
        assertThat(bound).startsWith("tcp://127.0.0.1:").doesNotEndWith(":*");

        ZMQ.Socket pub = socket(SocketType.PUB);
        pub.connect(bound);
        awaitJoined(pub, "engine-1/");
        send(pub, "engine-1", "event");

        await().atMost(Duration.ofSeconds(10)).until(() -> !received.isEmpty());
        assertThat(strings(received.get(0))).containsExactly("engine-1", "event");
    }

    @Test
    void processingFailuresAreHandledAndTheLoopKeepsReceiving() throws Exception {
        ZMQ.Socket pub = boundPub();
        route("zeromq:sub:" + pub.getLastEndpoint(), e -> {
            String first = strings(e).get(0);
            if (first.equals("boom")) {
                throw new IllegalStateException("processor failure");
            }
            received.add(e.copy());
        });
        awaitJoined(pub, "ok");

        send(pub, "boom", "1");
        send(pub, "after", "2");

        await().atMost(Duration.ofSeconds(10)).until(() -> !received.isEmpty());
        assertThat(strings(received.get(0))).containsExactly("after", "2");
    }

    @Test
    void connectingSubResumesAfterThePublisherComesBackOnTheSameAddress() throws Exception {
        ZMQ.Socket pub = boundPub();
        String address = pub.getLastEndpoint();
        route("zeromq:sub:" + address + "?reconnectInterval=20&reconnectIntervalMax=100");
        awaitJoined(pub, "before/");
        zmq.destroySocket(pub);

        ZMQ.Socket restarted = socket(SocketType.PUB);
        // The old listener is closed asynchronously by JeroMQ's reaper; retry until the port is free again.
        await().atMost(Duration.ofSeconds(10)).pollInSameThread().ignoreExceptions().until(() -> restarted.bind(address));
        awaitJoined(restarted, "after/");
        send(restarted, "after", "event");

        await().atMost(Duration.ofSeconds(10)).until(() -> !received.isEmpty());
        assertThat(strings(received.get(0))).containsExactly("after", "event");
    }

    @Test
    void stoppingTheRouteClosesTheSocketAndReleasesTheBoundPort() throws Exception {
        route("zeromq:sub:tcp://127.0.0.1:*");
        ZeroMqConsumer consumer = (ZeroMqConsumer) camel.getRoute("zmq").getConsumer();
        String bound = consumer.boundAddress();

        camel.getRouteController().stopRoute("zmq");

        assertThat(consumer.isStopped()).isTrue();
        ZMQ.Socket rebind = socket(SocketType.SUB);
        assertThat(rebind.bind(bound)).isTrue();
    }

    @Test
    void dealerConsumerReceivesWhatARouterSendsToItsIdentity() throws Exception {
        ZMQ.Socket router = socket(SocketType.ROUTER);
        router.setRouterMandatory(true);
        router.bind("tcp://127.0.0.1:*");
        route("zeromq:dealer:" + router.getLastEndpoint() + "?identity=caravan-kv");

        // With ROUTER_MANDATORY the send fails (EHOSTUNREACH) until the dealer's connection is established.
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20)).pollInSameThread().until(() -> {
            try {
                return router.send("caravan-kv", ZMQ.SNDMORE) && router.send("", ZMQ.SNDMORE) && router.send("hello");
            } catch (org.zeromq.ZMQException e) {
                return false;
            }
        });

        await().atMost(Duration.ofSeconds(10)).until(() -> !received.isEmpty());
        assertThat(strings(received.get(0))).containsExactly("", "hello");
        assertThat(received.get(0).getIn().getHeader(ZeroMqConstants.TOPIC)).isNull();
        assertThat(received.get(0).getIn().getHeader(ZeroMqConstants.FRAME_COUNT)).isEqualTo(2);
    }
}
