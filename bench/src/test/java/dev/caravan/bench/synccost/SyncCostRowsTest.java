package dev.caravan.bench.synccost;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class SyncCostRowsTest {

    private static final SyncSamples LAG = new SyncSamples(4.0, 30.0, 5.0, 2000, 600, 1900);

    /** A fleet that answered 1,000 requests in 60 s on {@code ticks} ticks of 10 ms, idle at 1 tick a second. */
    private static FleetRun run(int replicas, boolean sync, long ticks) {
        return run(replicas, sync, ticks, 0);
    }

    /** As {@link #run(int, boolean, long)}, {@code jit} of the ticks the JIT compilers' and 20 Hazelcast's. */
    private static FleetRun run(int replicas, boolean sync, long ticks, long jit) {
        return new FleetRun(replicas, sync, 1000, 0, 60, ticks, Map.of(ProcCpu.JIT, jit, ProcCpu.HAZELCAST, 20L), 10,
                10, 100, sync ? LAG : SyncSamples.NONE, 1.0, 2.0);
    }

    @Test
    void setsEachReplicaCountsFleetsSideBySideAgainstOneGatewayWithoutSync() {
        List<Map<String, Object>> rows = SyncCostRows.rows(List.of(run(1, false, 150), run(1, true, 170),
                run(3, false, 300), run(3, true, 400), run(5, false, 450), run(5, true, 700)));
        assertThat(rows).extracting(r -> r.get("replicas")).containsExactly(1, 3, 5);
        assertThat(rows).extracting(r -> r.get("cpu_us_off")).containsExactly(1500.0, 3000.0, 4500.0);
        assertThat(rows).extracting(r -> r.get("cpu_us_sync")).containsExactly(1700.0, 4000.0, 7000.0);
        assertThat(rows).extracting(r -> r.get("sync_cost_us")).containsExactly(200.0, 2500.0, 5500.0);
        assertThat(rows).extracting(r -> r.get("cost_vs_3")).containsExactly(0.08, 1.0, 2.2);
        assertThat(rows).extracting(r -> r.get("sync_own_us")).containsExactly(200.0, 1000.0, 2500.0);
    }

    @Test
    void withoutJitTheCostsLeaveOutTheCompilersOnBothSides() {
        List<Map<String, Object>> rows = SyncCostRows.rows(List.of(run(1, false, 150, 50), run(3, true, 400, 200),
                run(5, true, 700, 300)));
        assertThat(rows).extracting(r -> r.get("sync_cost_nojit_us")).containsExactly(null, 1000.0, 3000.0);
        assertThat(rows).extracting(r -> r.get("cost_nojit_vs_3")).containsExactly(null, 1.0, 3.0);
        assertThat(rows).extracting(r -> r.get("jit_us_sync")).containsExactly(null, 2000.0, 3000.0);
        assertThat(rows).extracting(r -> r.get("hz_us_sync")).containsExactly(null, 200.0, 200.0);
        assertThat(rows.get(0)).containsEntry("jit_us_off", 500.0);
    }

    @Test
    void carriesTheSyncFleetsLagIdleCpuAndMessages() {
        Map<String, Object> row = SyncCostRows.rows(List.of(run(1, false, 150), run(3, true, 400))).get(1);
        assertThat(row).containsEntry("rps", 1000 / 60.0).containsEntry("idle_ms_sync", 10.0)
                .containsEntry("busy_us_sync", 3400.0).containsEntry("lag_p50_ms", 4.0)
                .containsEntry("lag_p99_ms", 30.0).containsEntry("lag_mean_ms", 5.0)
                .containsEntry("decisions_applied_per_request", 2.0).containsEntry("decision_messages_per_request", 1.9)
                .containsEntry("load_reports_per_s", 10.0)
                .containsEntry("load_sync", "1.0 to 2.0").containsEntry("failed_sync", 0L);
        assertThat(row).doesNotContainKeys("cpu_us_off", "sync_own_us");
    }

    @Test
    void withoutTheBaselineThereIsNoSyncCost() {
        Map<String, Object> row = SyncCostRows.rows(List.of(run(3, true, 400))).get(0);
        assertThat(row).containsEntry("cpu_us_sync", 4000.0).doesNotContainKeys("sync_cost_us", "cost_vs_3");
    }

    @Test
    void withoutThreeReplicasThereIsNoRatio() {
        Map<String, Object> row = SyncCostRows.rows(List.of(run(1, false, 150), run(5, true, 700))).get(1);
        assertThat(row).containsEntry("sync_cost_us", 5500.0).doesNotContainKey("cost_vs_3");
    }
}
