package dev.caravan.bench.synccost;

import java.util.List;

import dev.caravan.bench.results.ResultsSection;
import dev.caravan.bench.results.ResultsSection.Column;

/** The section's command, columns and plot (docs/bench/results/sync-cost.json); the rows come from a run. */
final class SyncCostSection {

    static final String COMMAND = "mvn -B -q -DskipTests package\n"
            + "it-tests/bench/sync-cost.sh     # [SECONDS] measured per fleet, [RATE] requests/s over the replicas";
    static final String PLOT = "sync-cost.png";

    private SyncCostSection() {
    }

    static ResultsSection empty() {
        return new ResultsSection(COMMAND, List.of(), List.of(
                Column.of("replicas", "%.0f", "replicas"),
                Column.of("req/s", "%.0f", "rps"),
                Column.of("CPU µs/request no sync · sync", "%.0f · %.0f", "cpu_us_off", "cpu_us_sync"),
                Column.of("sync cost µs/request · × at 3", "%+.0f · %.2f", "sync_cost_us", "cost_vs_3"),
                Column.of("without JIT µs/request · × at 3", "%+.0f · %.2f", "sync_cost_nojit_us",
                        "cost_nojit_vs_3"),
                Column.of("sync's own µs/request", "%+.0f", "sync_own_us"),
                Column.of("Hazelcast threads µs/request", "%.0f", "hz_us_sync"),
                Column.of("idle CPU ms/s no sync · sync", "%.1f · %.1f", "idle_ms_off", "idle_ms_sync"),
                Column.of("decision lag p50 / p99 / mean ms", "%.1f / %.1f / %.1f", "lag_p50_ms", "lag_p99_ms",
                        "lag_mean_ms"),
                Column.of("load average no sync · sync", "%s · %s", "load_off", "load_sync")),
                List.of(), List.of(new ResultsSection.Plot(PLOT, "line",
                        "Gateways' CPU per request over replicas (same total rate)", "replicas", "CPU µs per request",
                        0.0, null, List.of(new ResultsSection.Series("no sync", "cpu_us_off"),
                                new ResultsSection.Series("--sync hazelcast", "cpu_us_sync"),
                                new ResultsSection.Series("sync cost (vs 1 gateway, no sync)", "sync_cost_us")))));
    }
}
