package dev.caravan.components.zeromq;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * The JeroMQ 0.6.0 handshake stall (docs/design/kv-events.md, "Threading, stop, reconnect, slow joiner") is cured only on the connecting side, so the handshake
 * interval must be set on SUB and DEALER sockets that connect to engines, before they connect.
 */
class ZeroMqSocketsTest {

    @ParameterizedTest
    @EnumSource(value = ZeroMqSocketType.class, names = {"SUB", "DEALER"})
    void connectingConsumersGetTheConfiguredHandshakeInterval(ZeroMqSocketType type) {
        ZeroMqConfiguration config = new ZeroMqConfiguration();
        config.setSocketType(type.uriName());
        config.setAddress("tcp://127.0.0.1:1");   // nothing listens: connect is asynchronous and keeps retrying
        config.setHandshakeInterval(Duration.ofMillis(1234));
        try (ZContext context = new ZContext(1)) {
            ZMQ.Socket socket = ZeroMqSockets.open(context, config);

            assertThat(config.getMode().binds(config.getAddress())).isFalse();
            assertThat(socket.getHandshakeIvl()).isEqualTo(1234);
            assertThat(socket.getLinger()).isEqualTo((int) ZeroMqConfiguration.DEFAULT_LINGER_MS);
        }
    }
}
