package dev.caravan.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.ServerSocket;

import org.junit.jupiter.api.Test;

class SimFleetTest {

    @Test
    void startsEnginesOnEphemeralPortsAndStopsThem() {
        try (SimFleet fleet = SimFleet.start(3, SimConfig.builder().build())) {
            assertThat(fleet.urls()).hasSize(3).doesNotHaveDuplicates();
            for (SimEngine e : fleet.engines()) {
                assertThat(Http.get(e.url() + "/health").statusCode()).isEqualTo(200);
            }
        }
    }

    @Test
    void fleetConfigOffsetsPortsEndpointsAndSeeds() {
        SimConfig base = SimConfig.builder().port(8000).role(EngineRole.PREFILL).bootstrapPort(9000)
                .kvEventsEndpoint("tcp://*:5557").kvReplayEndpoint("tcp://*:5600").seed(10).build();
        SimConfig third = SimFleet.configFor(base, 2);
        assertThat(third.port()).isEqualTo(8002);
        assertThat(third.bootstrapPort()).isEqualTo(9002);
        assertThat(third.kvEventsEndpoint()).isEqualTo("tcp://*:5559");
        assertThat(third.kvReplayEndpoint()).isEqualTo("tcp://*:5602");
        assertThat(third.seed()).isEqualTo(12);
    }

    @Test
    void aTakenPortFailsTheStartWithAClearMessage() throws IOException {
        try (ServerSocket taken = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            assertThatThrownBy(() -> SimFleet.start(1, SimConfig.builder().port(taken.getLocalPort()).build()))
                    .hasMessageContaining("could not start on 127.0.0.1:" + taken.getLocalPort());
        }
    }
}
