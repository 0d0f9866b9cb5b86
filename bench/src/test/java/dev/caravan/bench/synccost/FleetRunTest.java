package dev.caravan.bench.synccost;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;

import org.junit.jupiter.api.Test;

class FleetRunTest {

    // 150 ticks of 10 ms over 60 s for 1,000 requests (50 of them the JIT's, 30 Hazelcast's); 20 ticks over 10 s idle
    private static final FleetRun RUN = new FleetRun(3, true, 1000, 2, 60, 150,
            Map.of(ProcCpu.JIT, 50L, ProcCpu.HAZELCAST, 30L), 10, 20, 100, SyncSamples.NONE, 1.5, 2.5);

    @Test
    void cpuPerRequestIsTheTicksInMicrosecondsOverTheRequests() {
        assertThat(RUN.cpuUsPerRequest()).isEqualTo(1500.0);
    }

    @Test
    void aThreadGroupsCpuIsPerRequestToo() {
        assertThat(RUN.groupUsPerRequest(ProcCpu.JIT)).isEqualTo(500.0);
        assertThat(RUN.groupUsPerRequest(ProcCpu.HAZELCAST)).isEqualTo(300.0);
        assertThat(RUN.groupUsPerRequest(ProcCpu.GC)).isEqualTo(0.0);
        assertThat(RUN.cpuUsPerRequestWithoutJit()).isEqualTo(1000.0);
    }

    @Test
    void idleCpuIsMillisecondsPerSecond() {
        assertThat(RUN.idleCpuMsPerSecond()).isEqualTo(20.0);
    }

    @Test
    void busyCpuLeavesOutWhatTheFleetSpendsIdleOverTheWindow() {
        // 1,500,000 µs in all, 20 ms/s × 60 s = 1,200,000 µs of it idle
        assertThat(RUN.busyCpuUsPerRequest()).isEqualTo(300.0);
    }

    @Test
    void requestsPerSecondIsOverTheWindow() {
        assertThat(new FleetRun(1, false, 600, 0, 60, 1, Map.of(), 0, 0, 100, SyncSamples.NONE, 0, 0).requestsPerSecond())
                .isEqualTo(10.0);
    }

    @Test
    void aRunWithoutRequestsHasNoCostPerRequest() {
        FleetRun none = new FleetRun(1, false, 0, 5, 60, 100, Map.of(), 0, 0, 100, SyncSamples.NONE, 0, 0);
        assertThat(none.cpuUsPerRequest()).isNaN();
        assertThat(none.idleCpuMsPerSecond()).isNaN();
        assertThat(none.busyCpuUsPerRequest()).isNaN();
    }

    @Test
    void rejectsNoReplica() {
        assertThatThrownBy(() -> new FleetRun(0, false, 1, 0, 1, 1, Map.of(), 1, 1, 100, SyncSamples.NONE, 0, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("replicas must be at least 1, was 0");
    }

    @Test
    void rejectsNoTicksPerSecond() {
        assertThatThrownBy(() -> new FleetRun(1, false, 1, 0, 1, 1, Map.of(), 1, 1, 0, SyncSamples.NONE, 0, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("ticksPerSecond must be at least 1, was 0");
    }
}
