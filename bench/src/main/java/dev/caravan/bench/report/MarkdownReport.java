package dev.caravan.bench.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Renders a {@link BenchReport} as Markdown: a header naming the workload, engines and time base, the main table (one
 * row per policy, then the analytic rows when the workload has them and the ceilings' rows, {@link CeilingRows}), the
 * N-gateway comparison when runs had several
 * replicas ({@link ReplicaComparison}), the per-engine request shares, and notes. Every
 * figure comes from the report object, which is also what the JSON file contains.
 */
public final class MarkdownReport {

    private MarkdownReport() {
    }

    public static String render(BenchReport r) {
        StringBuilder sb = new StringBuilder();
        BenchReport.EngineSetup e = r.engines();
        sb.append("### ").append(r.description()).append("\n\n");
        sb.append(String.format(Locale.ROOT, "Mode `%s`: %d simulated engines%s, KV pool %,d tokens each (block %d), "
                + "prefill %,.0f tokens/s + %.1f ms, decode %.1f ms/token, time scale %s. Latencies, req/s and "
                + "G_waste are in **simulated** time.%n%n", r.mode(), e.count(),
                e.tokenizer() == null ? "" : " on " + e.tokenizer() + " tokens", e.kvCapacityTokens(), e.blockSize(),
                e.prefillTokensPerSec(), e.prefillOverheadMs(), e.decodeMsPerToken(), num(e.timeScale())));
        sb.append("| policy | done (failed) | hit | prefix hit | reuse hit | of Belady | TTFT p50 / p99 ms "
                + "| e2e p50 / p99 ms | req/s | share max/mean | in flight mean · max/mean · peak | G_waste GPU-s/s |\n");
        sb.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (PolicyResult p : r.results()) {
            sb.append("| ").append(p.label())
                    .append(" | ").append(String.format(Locale.ROOT, "%,d (%,d)", p.completed(), p.failed()))
                    .append(" | ").append(f3(p.tokenHit()))
                    .append(" | ").append(f3(p.prefixHit()))
                    .append(" | ").append(f3(p.reuseHit()))
                    .append(" | ").append(f3(p.hitOfBelady()))
                    .append(" | ").append(ms(p.ttftP50Ms())).append(" / ").append(ms(p.ttftP99Ms()))
                    .append(" | ").append(ms(p.e2eP50Ms())).append(" / ").append(ms(p.e2eP99Ms()))
                    .append(" | ").append(f1(p.throughputRps()))
                    .append(" | ").append(f2(p.shareMaxOverMean()))
                    .append(" | ").append(p.inflightMean() == null ? "–" : f1(mean(p.inflightMean())) + " · "
                            + f2(p.inflightMaxOverMean()) + " · " + String.format(Locale.ROOT, "%.0f",
                            p.inflightPeak()))
                    .append(" | ").append(f2(p.gWaste())).append(" |\n");
        }
        AnalyticBounds a = r.analytic();
        if (a != null) {
            analyticRow(sb, "*analytic: round robin, M/W*", a.roundRobinHit(), a);
            analyticRow(sb, "*analytic: perfect affinity, min(1, MN/W)*", a.affinityHit(), a);
            analyticRow(sb, "*LRU model with unique blocks: round robin*", a.roundRobinHitLru(), a);
            analyticRow(sb, "*LRU model with unique blocks: perfect affinity*", a.affinityHitLru(), a);
        }
        CeilingRows.render(sb, r);
        ReplicaComparison.render(sb, r);
        DecisionQualityRows.render(sb, r);
        sb.append('\n');
        sharesTable(sb, r.results());
        conditionsTable(sb, r.results());
        List<String> notes = new ArrayList<>(r.notes());
        CeilingRows.note(r).ifPresent(notes::add);
        if (a != null) {
            notes.add(String.format(Locale.ROOT, "Analytic model: M = %d prefixes per engine, W = %,d, N = %d, "
                    + "L_p = %,d tokens, t_prefill = %.1f ms, %.1f req/s; G_waste = rate × (1 − H) × t_prefill. "
                    + "Skewed popularity uses Che's LRU approximation; the unique-block rows also count the %d blocks "
                    + "per request nobody reuses.", a.prefixesPerReplica(), a.tenants(), a.engines(),
                    a.prefixTokens(), a.prefillSecondsPerPrefix() * 1e3, a.rate(), a.uniqueBlocksPerRequest()));
        }
        if (!notes.isEmpty()) {
            sb.append('\n');
            for (String n : notes) {
                sb.append("- ").append(n).append('\n');
            }
        }
        return sb.toString();
    }

    private static void analyticRow(StringBuilder sb, String label, double hit, AnalyticBounds a) {
        sb.append("| ").append(label).append(" | | | ").append(f3(hit)).append(" | | | | | | | | ")
                .append(f2(a.gWaste(hit))).append(" |\n");
    }

    private static void sharesTable(StringBuilder sb, List<PolicyResult> results) {
        int n = results.stream().mapToInt(p -> p.engineShares().size()).max().orElse(0);
        if (n == 0) {
            return;
        }
        boolean keyed = results.stream().anyMatch(p -> p.stickiness() != null);
        sb.append("Share of requests per engine").append(keyed ? "; stickiness (share of requests on their routing "
                + "key's first engine) and routing keys by the engine of their first request" : "")
                .append(":\n\n| policy |");
        for (int i = 0; i < n; i++) {
            sb.append(' ').append(i).append(" |");
        }
        sb.append(keyed ? " stickiness | keys by first engine |" : "");
        sb.append("\n|---|").append("---:|".repeat(n + (keyed ? 2 : 0))).append('\n');
        for (PolicyResult p : results) {
            sb.append("| ").append(p.label()).append(" |");
            for (int i = 0; i < n; i++) {
                sb.append(' ').append(i < p.engineShares().size() ? f3(p.engineShares().get(i)) : "–").append(" |");
            }
            if (keyed) {
                sb.append(' ').append(f3(p.stickiness())).append(" | ").append(p.keysByFirstEngine().isEmpty() ? "–"
                        : String.join(" · ", p.keysByFirstEngine().stream().map(String::valueOf).toList()))
                        .append(" |");
            }
            sb.append('\n');
        }
    }

    private static void conditionsTable(StringBuilder sb, List<PolicyResult> results) {
        sb.append("\nRun conditions (wall clock):\n\n| policy | wall s | sent late by p99 ms | load average start → end |"
                + "\n|---|---:|---:|---|\n");
        for (PolicyResult p : results) {
            sb.append("| ").append(p.label()).append(" | ").append(String.format(Locale.ROOT, "%.0f", p.wallSeconds()))
                    .append(" | ").append(f1(p.sendLagP99Ms())).append(" | ")
                    .append(p.settings().getOrDefault("load_average", "–")).append(" |\n");
        }
    }

    private static double mean(List<Double> v) {
        return v.stream().mapToDouble(Double::doubleValue).average().orElse(0);
    }

    static String f3(Double v) {
        return v == null ? "–" : String.format(Locale.ROOT, "%.3f", v);
    }

    static String f2(Double v) {
        return v == null ? "–" : String.format(Locale.ROOT, "%.2f", v);
    }

    static String f1(Double v) {
        return v == null ? "–" : String.format(Locale.ROOT, "%.1f", v);
    }

    static String ms(Double v) {
        if (v == null) {
            return "–";
        }
        return v < 10 ? String.format(Locale.ROOT, "%.1f", v) : String.format(Locale.ROOT, "%,.0f", v);
    }

    static String num(double v) {
        return v == Math.rint(v) ? String.format(Locale.ROOT, "%.0f", v) : String.valueOf(v);
    }
}
