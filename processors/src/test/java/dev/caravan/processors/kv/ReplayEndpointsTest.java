package dev.caravan.processors.kv;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ReplayEndpointsTest {

    @Test
    void offsetsTcpPortsAndInprocNamesByRankAsVllmDoes() {
        assertThat(ReplayEndpoints.forRank("tcp://engine:5558", 0)).isEqualTo("tcp://engine:5558");
        assertThat(ReplayEndpoints.forRank("tcp://engine:5558", 3)).isEqualTo("tcp://engine:5561");
        assertThat(ReplayEndpoints.forRank("tcp://[::1]:5558", 1)).isEqualTo("tcp://[::1]:5559");
        assertThat(ReplayEndpoints.forRank("inproc://replay", 2)).isEqualTo("inproc://replay_dp2");
        assertThat(ReplayEndpoints.forRank("ipc:///tmp/replay", 2)).isEqualTo("ipc:///tmp/replay");
    }
}
