package dev.caravan.components.zeromq;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.camel.Exchange;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZFrame;
import org.zeromq.ZMQ;
import org.zeromq.ZMsg;

class ZeroMqProducerTest {

    private final ZContext zmq = new ZContext(1);
    private final DefaultCamelContext camel = new DefaultCamelContext();
    private ZMQ.Socket sub;
    private ProducerTemplate template;

    @BeforeEach
    void setUp() throws Exception {
        sub = zmq.createSocket(SocketType.SUB);
        sub.setLinger(0);
        sub.setHandshakeIvl((int) ZeroMqConfiguration.DEFAULT_HANDSHAKE_INTERVAL_MS);
        sub.setReceiveTimeOut(20);
        sub.subscribe(new byte[0]);
        sub.bind("tcp://127.0.0.1:*");
        String uri = "zeromq:pub:" + sub.getLastEndpoint();
        camel.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("direct:pub").to(uri);
            }
        });
        camel.start();
        template = camel.createProducerTemplate();
    }

    @AfterEach
    void tearDown() {
        camel.stop();
        zmq.close();
    }

    private static List<String> strings(ZMsg msg) {
        List<String> out = new ArrayList<>();
        for (ZFrame f : msg) {
            out.add(new String(f.getData(), UTF_8));
        }
        return out;
    }

    /** Publishes {@code body} until the subscriber has joined (slow joiner), then drains to a sync marker. */
    private void awaitJoined() {
        await().atMost(Duration.ofSeconds(10)).pollInSameThread().pollInterval(Duration.ofMillis(20)).until(() -> {
            template.sendBody("direct:pub", List.of("probe"));
            return ZMsg.recvMsg(sub) != null;
        });
        template.sendBody("direct:pub", List.of("sync"));
        await().atMost(Duration.ofSeconds(10)).pollInSameThread().until(() -> {
            ZMsg m = ZMsg.recvMsg(sub);
            return m != null && strings(m).equals(List.of("sync"));
        });
    }

    private ZMsg receive() {
        ZMsg[] holder = new ZMsg[1];
        await().atMost(Duration.ofSeconds(10)).pollInSameThread().until(() -> (holder[0] = ZMsg.recvMsg(sub)) != null);
        return holder[0];
    }

    @Test
    void aListBodyIsSentAsThoseFramesInOrder() {
        awaitJoined();

        template.sendBody("direct:pub", List.of("kv@a", new byte[] {0, 0, 0, 0, 0, 0, 0, 7}, "payload"));

        ZMsg msg = receive();
        assertThat(msg.size()).isEqualTo(3);
        assertThat(msg.pop().getString(UTF_8)).isEqualTo("kv@a");
        assertThat(msg.pop().getData()).containsExactly(0, 0, 0, 0, 0, 0, 0, 7);
        assertThat(msg.pop().getString(UTF_8)).isEqualTo("payload");
    }

    @Test
    void aSingleBodyIsPrecededByTheTopicHeaderWhenSet() {
        awaitJoined();

        template.sendBodyAndHeaders("direct:pub", "hello", Map.of(ZeroMqConstants.TOPIC, "kv@b"));
        template.sendBody("direct:pub", "bare");

        assertThat(strings(receive())).containsExactly("kv@b", "hello");
        assertThat(strings(receive())).containsExactly("bare");
    }

    @Test
    void aSendAfterStopFailsTheExchangeInsteadOfHanging() throws Exception {
        awaitJoined();
        ZeroMqEndpoint endpoint = camel.getEndpoint("zeromq:pub:" + sub.getLastEndpoint(), ZeroMqEndpoint.class);
        ZeroMqProducer producer = (ZeroMqProducer) endpoint.createProducer();
        producer.start();
        producer.stop();

        Exchange exchange = endpoint.createExchange();
        exchange.getIn().setBody("late");
        producer.process(exchange, doneSync -> { });

        assertThat(exchange.getException()).isInstanceOf(ZeroMqException.class)
                .hasMessageContaining("is not started");
    }
}
