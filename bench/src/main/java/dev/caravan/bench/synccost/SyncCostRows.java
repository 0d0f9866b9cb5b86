package dev.caravan.bench.synccost;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The section's rows: one per replica count, its fleet without sync next to its fleet with {@code --sync hazelcast}.
 * The sync cost of N replicas is their CPU per request with sync minus one gateway's without ({@code sync_cost_us});
 * {@code sync_own_us} subtracts N replicas without sync instead, leaving what the sync itself adds; {@code cost_vs_3}
 * is the sync cost over the sync cost at three replicas (the criterion reads it at five). The {@code _nojit} figures
 * leave out the JIT compilers' threads on both sides: a fleet of short-lived JVMs still compiles during its window
 * (more so the more JVMs share the two cores), which a long-running gateway has long finished.
 */
final class SyncCostRows {

    /** The replica count the criterion compares against. */
    static final int REFERENCE_REPLICAS = 3;

    private SyncCostRows() {
    }

    static List<Map<String, Object>> rows(List<FleetRun> runs) {
        Optional<FleetRun> baseline = find(runs, 1, false);
        Double reference = find(runs, REFERENCE_REPLICAS, true).flatMap(r -> baseline.map(b -> syncCost(r, b)))
                .orElse(null);
        Double referenceWithoutJit = find(runs, REFERENCE_REPLICAS, true)
                .flatMap(r -> baseline.map(b -> syncCostWithoutJit(r, b))).orElse(null);
        List<Map<String, Object>> rows = new ArrayList<>();
        runs.stream().map(FleetRun::replicas).distinct().sorted().forEach(n -> {
            Optional<FleetRun> off = find(runs, n, false);
            Optional<FleetRun> on = find(runs, n, true);
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("replicas", n);
            on.or(() -> off).ifPresent(r -> row.put("rps", r.requestsPerSecond()));
            off.ifPresent(r -> {
                row.put("cpu_us_off", finite(r.cpuUsPerRequest()));
                row.put("idle_ms_off", finite(r.idleCpuMsPerSecond()));
                row.put("busy_us_off", finite(r.busyCpuUsPerRequest()));
                row.put("jit_us_off", finite(r.groupUsPerRequest(ProcCpu.JIT)));
                row.put("failed_off", r.failed());
                row.put("load_off", load(r));
            });
            on.ifPresent(r -> {
                row.put("cpu_us_sync", finite(r.cpuUsPerRequest()));
                row.put("idle_ms_sync", finite(r.idleCpuMsPerSecond()));
                row.put("busy_us_sync", finite(r.busyCpuUsPerRequest()));
                row.put("jit_us_sync", finite(r.groupUsPerRequest(ProcCpu.JIT)));
                row.put("hz_us_sync", finite(r.groupUsPerRequest(ProcCpu.HAZELCAST)));
                row.put("failed_sync", r.failed());
                row.put("load_sync", load(r));
                baseline.ifPresent(b -> {
                    double cost = syncCost(r, b);
                    row.put("sync_cost_us", finite(cost));
                    if (reference != null) {
                        row.put("cost_vs_3", finite(cost / reference));
                    }
                    double withoutJit = syncCostWithoutJit(r, b);
                    row.put("sync_cost_nojit_us", finite(withoutJit));
                    if (referenceWithoutJit != null) {
                        row.put("cost_nojit_vs_3", finite(withoutJit / referenceWithoutJit));
                    }
                });
                off.ifPresent(o -> row.put("sync_own_us", finite(r.cpuUsPerRequest() - o.cpuUsPerRequest())));
                SyncSamples s = r.samples();
                row.put("lag_p50_ms", s.lagP50Ms());
                row.put("lag_p99_ms", s.lagP99Ms());
                row.put("lag_mean_ms", s.lagMeanMs());
                if (r.requests() > 0) {
                    row.put("decisions_applied_per_request", (double) s.decisions() / r.requests());
                    row.put("decision_messages_per_request", (double) s.decisionBatches() / r.requests());
                }
                row.put("load_reports_per_s", s.loadReports() / r.seconds());
            });
            rows.add(row);
        });
        return rows;
    }

    /** CPU µs per request of {@code run} beyond the one-gateway fleet without sync. */
    static double syncCost(FleetRun run, FleetRun baseline) {
        return run.cpuUsPerRequest() - baseline.cpuUsPerRequest();
    }

    /** As {@link #syncCost}, both without the JIT compilers' threads. */
    static double syncCostWithoutJit(FleetRun run, FleetRun baseline) {
        return run.cpuUsPerRequestWithoutJit() - baseline.cpuUsPerRequestWithoutJit();
    }

    private static Optional<FleetRun> find(List<FleetRun> runs, int replicas, boolean sync) {
        return runs.stream().filter(r -> r.replicas() == replicas && r.sync() == sync).reduce((a, b) -> b);
    }

    private static Double finite(double v) {
        return Double.isFinite(v) ? v : null;
    }

    private static String load(FleetRun r) {
        return String.format(Locale.ROOT, "%.1f to %.1f", r.loadStart(), r.loadEnd());
    }
}
