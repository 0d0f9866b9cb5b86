package dev.caravan.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class ReplicaComparisonTest {

    private static PolicyResult result(String label, int gateways, double hit, Double stickiness, double share,
                                       List<Map<String, Double>> sync) {
        return new PolicyResult(label, "caravan", "cache_aware", Map.of(), Map.of(), 100, 80, 80, 0, hit, hit, hit,
                10.0, 200.0, 50.0, 300.0, 50.0, 50.0, List.of(0.5, 0.5), share, null, null, null, 0.1, 1000, 800,
                800, 800, Map.of(), 1.0, 10.0, gateways, gateways > 1 ? "client" : null, stickiness, sync, 40.0,
                400.0, List.of(100L), null, null, null, List.of(), Map.of());
    }

    private static BenchReport report(List<PolicyResult> results) {
        return new BenchReport("./caravan bench b2b --gateways 3", "http", "b2b", "b2b", Map.of(),
                new BenchReport.EngineSetup(8, 1000, 16, 24000, 0.7, 8, 8192, 2.0, "synthetic"), null, results, List.of(),
                Map.of(), List.of());
    }

    @Test
    void setsEachReplicatedRunNextToItsOneGatewayRun() {
        StringBuilder sb = new StringBuilder();
        ReplicaComparison.render(sb, report(List.of(result("manual", 1, 0.8, 1.0, 1.10, List.of()),
                result("manual ×3", 3, 0.4, 0.5, 1.25, List.of(Map.of(), Map.of(), Map.of())),
                result("round_robin", 1, 0.1, 0.125, 1.0, List.of()))));
        assertThat(sb.toString())
                .contains("3 replicas, client round-robin front")
                .contains("| manual ×3 | 0.800 → 0.400 | 0.500 | 1.000 → 0.500 | 0.500 | 1.10 → 1.25 | +0.15 "
                        + "| 10 → 10 | 200 → 200 |")
                // 50 simulated req/s at time scale 2: 10 wall ms between arrivals; key gaps 40 / 400 sim ms
                .contains("| manual ×3 | 10 | 20 / 200 | none (sync off) |")
                .doesNotContain("| round_robin");
    }

    @Test
    void rendersNothingWithoutReplicatedRuns() {
        StringBuilder sb = new StringBuilder();
        ReplicaComparison.render(sb, report(List.of(result("manual", 1, 0.8, 1.0, 1.1, List.of()))));
        assertThat(sb).isEmpty();
    }

    @Test
    void showsLagSamplesInMillisecondsAgainstTheInterArrivalTime() {
        String lag = "caravan_sync_lag_seconds{quantile=\"0.99\",}";
        String cell = ReplicaComparison.samples(List.of(Map.of(lag, 0.004, "caravan_sync_members", 3.0),
                Map.of(lag, 0.005, "caravan_sync_members", 3.0)), 10.0);
        assertThat(cell).isEqualTo("`caravan_sync_lag_seconds{quantile=\"0.99\",}` 4.0 / 5.0 (max 0.50× "
                + "inter-arrival)<br>`caravan_sync_members` 3 / 3");
    }

    @Test
    void lagSamplesAreSecondsOtherThanCountsAndSums() {
        assertThat(ReplicaComparison.isLagSeconds("caravan_sync_lag_seconds{quantile=\"0.5\",}")).isTrue();
        assertThat(ReplicaComparison.isLagSeconds("caravan_sync_lag_seconds_max")).isTrue();
        assertThat(ReplicaComparison.isLagSeconds("caravan_sync_lag_seconds_count")).isFalse();
        assertThat(ReplicaComparison.isLagSeconds("caravan_sync_lag_seconds_sum")).isFalse();
        assertThat(ReplicaComparison.isLagSeconds("caravan_sync_dropped_total")).isFalse();
    }
}
