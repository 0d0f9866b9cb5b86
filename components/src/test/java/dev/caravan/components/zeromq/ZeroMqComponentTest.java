package dev.caravan.components.zeromq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;

import org.apache.camel.ResolveEndpointFailedException;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ZeroMqComponentTest {

    private final DefaultCamelContext camel = new DefaultCamelContext();

    @AfterEach
    void tearDown() {
        camel.stop();
    }

    private ZeroMqConfiguration configOf(String uri) {
        return camel.getEndpoint(uri, ZeroMqEndpoint.class).getConfiguration();
    }

    @Test
    void resolvesTheSchemeAndParsesSocketTypeAndAddress() {
        ZeroMqConfiguration c = configOf("zeromq:sub:tcp://engine-a:5557?topics=kv@");

        assertThat(c.socketKind()).isEqualTo(ZeroMqSocketType.SUB);
        assertThat(c.getAddress()).isEqualTo("tcp://engine-a:5557");
        assertThat(c.topicList()).containsExactly("kv@");
    }

    @Test
    void unsetOptionsTakeTheDocumentedDefaults() {
        ZeroMqConfiguration c = configOf("zeromq:dealer:tcp://engine-a:5558");

        assertThat(c.topicList()).containsExactly("");
        assertThat(c.getMode()).isEqualTo(ZeroMqMode.AUTO);
        assertThat(c.getHighWaterMark()).isEqualTo(ZeroMqConfiguration.DEFAULT_HIGH_WATER_MARK);
        assertThat(c.getReconnectInterval()).isEqualTo(Duration.ofMillis(ZeroMqConfiguration.DEFAULT_RECONNECT_INTERVAL_MS));
        assertThat(c.getReconnectIntervalMax()).isEqualTo(Duration.ofMillis(ZeroMqConfiguration.DEFAULT_RECONNECT_INTERVAL_MAX_MS));
        assertThat(c.getHandshakeInterval()).isEqualTo(Duration.ofMillis(ZeroMqConfiguration.DEFAULT_HANDSHAKE_INTERVAL_MS));
        assertThat(c.getLinger()).isEqualTo(Duration.ofMillis(ZeroMqConfiguration.DEFAULT_LINGER_MS));
        assertThat(c.getReceiveTimeout()).isEqualTo(Duration.ofMillis(ZeroMqConfiguration.DEFAULT_RECEIVE_TIMEOUT_MS));
        assertThat(c.isLastFrameOnly()).isFalse();
        assertThat(c.getIdentity()).isNull();
        assertThat(c.getProducerQueueSize()).isEqualTo(ZeroMqConfiguration.DEFAULT_PRODUCER_QUEUE_SIZE);
    }

    @Test
    void bindsOptionsIncludingDurationsAndCaseInsensitiveEnums() {
        ZeroMqConfiguration c = configOf("zeromq:SUB:tcp://*:5557?mode=connect&reconnectInterval=2s"
                + "&reconnectIntervalMax=1m&highWaterMark=10&topics=kv@a, kv@b&lastFrameOnly=true&receiveTimeout=50");

        assertThat(c.socketKind()).isEqualTo(ZeroMqSocketType.SUB);
        assertThat(c.getMode()).isEqualTo(ZeroMqMode.CONNECT);
        assertThat(c.getReconnectInterval()).isEqualTo(Duration.ofSeconds(2));
        assertThat(c.getReconnectIntervalMax()).isEqualTo(Duration.ofMinutes(1));
        assertThat(c.getHighWaterMark()).isEqualTo(10);
        assertThat(c.topicList()).containsExactly("kv@a", "kv@b");
        assertThat(c.isLastFrameOnly()).isTrue();
        assertThat(c.getReceiveTimeout()).isEqualTo(Duration.ofMillis(50));
    }

    @Test
    void endpointsNeverShareConfiguration() {
        ZeroMqConfiguration a = configOf("zeromq:sub:tcp://a:1?topics=x");
        ZeroMqConfiguration b = configOf("zeromq:sub:tcp://b:1");

        assertThat(a).isNotSameAs(b);
        assertThat(b.topicList()).containsExactly("");
        assertThat(camel.getComponent("zeromq", ZeroMqComponent.class).getConfiguration().getTopics()).isEmpty();
    }

    @Test
    void rejectsAPathWithoutSocketTypeWithTheSyntax() {
        assertThatThrownBy(() -> camel.getEndpoint("zeromq:tcp"))
                .isInstanceOf(ResolveEndpointFailedException.class)
                .hasStackTraceContaining("Invalid zeromq URI 'zeromq://tcp': expected zeromq:socketType:address, e.g."
                        + " zeromq:sub:tcp://engine-a:5557?topics=kv@ (socketType sub, dealer or pub)");
    }

    @Test
    void rejectsAnUnknownSocketTypeNamingTheAcceptedOnes() {
        assertThatThrownBy(() -> camel.getEndpoint("zeromq:push:tcp://a:1"))
                .isInstanceOf(ResolveEndpointFailedException.class)
                .hasStackTraceContaining("must be one of sub, dealer, pub, was 'push'");
    }

    @Test
    void rejectsAnAddressWithoutATransport() {
        assertThatThrownBy(() -> camel.getEndpoint("zeromq:sub:engine-a:5557"))
                .isInstanceOf(ResolveEndpointFailedException.class)
                .hasStackTraceContaining("address must start with tcp://, ipc:// or inproc://, was 'engine-a:5557'");
    }

    @Test
    void rejectsUnknownOptions() {
        assertThatThrownBy(() -> camel.getEndpoint("zeromq:sub:tcp://a:1?topic=kv"))
                .isInstanceOf(ResolveEndpointFailedException.class)
                .hasMessageContaining("Check the uri if the parameters are spelt correctly")
                .hasMessageContaining("Unknown parameters=[{topic=kv}]");
    }

    @Test
    void rejectsOutOfRangeValuesNamingTheOption() {
        assertThatThrownBy(() -> camel.getEndpoint("zeromq:sub:tcp://a:1?receiveTimeout=0"))
                .isInstanceOf(ResolveEndpointFailedException.class)
                .hasStackTraceContaining("receiveTimeout must be >= 1, was 0");
    }

    @Test
    void aPubEndpointCannotBeConsumed() throws Exception {
        camel.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("zeromq:pub:tcp://127.0.0.1:*").to("log:x");
            }
        });
        assertThatThrownBy(camel::start).hasStackTraceContaining("zeromq:pub endpoints can only be sent to");
    }

    @Test
    void autoModeBindsWildcardAndLocalTransportsAndConnectsTheRest() {
        assertThat(ZeroMqMode.AUTO.binds("tcp://*:5557")).isTrue();
        assertThat(ZeroMqMode.AUTO.binds("tcp://[::]:5557")).isTrue();
        assertThat(ZeroMqMode.AUTO.binds("ipc:///tmp/kv")).isTrue();
        assertThat(ZeroMqMode.AUTO.binds("inproc://kv")).isTrue();
        assertThat(ZeroMqMode.AUTO.binds("tcp://engine-a:5557")).isFalse();
        assertThat(ZeroMqMode.BIND.binds("tcp://engine-a:5557")).isTrue();
        assertThat(ZeroMqMode.CONNECT.binds("tcp://*:5557")).isFalse();
    }
}
