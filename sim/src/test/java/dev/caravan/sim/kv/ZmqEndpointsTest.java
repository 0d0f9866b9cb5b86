package dev.caravan.sim.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ZmqEndpointsTest {

    @Test
    void bindsWildcardsIpcAndInprocButConnectsConcreteTcp() {
        assertThat(ZmqEndpoints.shouldBind("tcp://*:5557")).isTrue();
        assertThat(ZmqEndpoints.shouldBind("tcp://127.0.0.1:*")).isTrue();
        assertThat(ZmqEndpoints.shouldBind("tcp://[::]:5557")).isTrue();
        assertThat(ZmqEndpoints.shouldBind("ipc:///tmp/kv")).isTrue();
        assertThat(ZmqEndpoints.shouldBind("inproc://kv")).isTrue();
        assertThat(ZmqEndpoints.shouldBind("tcp://router:5557")).isFalse();
    }

    @Test
    void offsetsTcpPortsPerEngineAndKeepsEphemeralPorts() {
        assertThat(ZmqEndpoints.offset("tcp://*:5557", 0)).isEqualTo("tcp://*:5557");
        assertThat(ZmqEndpoints.offset("tcp://*:5557", 3)).isEqualTo("tcp://*:5560");
        assertThat(ZmqEndpoints.offset("tcp://127.0.0.1:*", 3)).isEqualTo("tcp://127.0.0.1:*");
        assertThat(ZmqEndpoints.offset("inproc://kv", 2)).isEqualTo("inproc://kv_2");
        assertThat(ZmqEndpoints.offset(null, 2)).isNull();
        assertThatThrownBy(() -> ZmqEndpoints.offset("tcp://*:65535", 1))
                .hasMessageContaining("exceeds port 65535");
    }
}
