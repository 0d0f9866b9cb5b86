package dev.caravan.bench.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The N-gateway section of the Markdown report: every policy run behind N replicas set next to the same policy behind
 * one gateway measured in the same invocation (hit rate, stickiness, share max/mean, TTFT, each with its ratio or
 * difference), then the replicas' sync metrics against the workload's inter-arrival times. Renders nothing when no run
 * had more than one replica.
 *
 * <p>Time bases: hit rates, stickiness and shares have none; TTFT is simulated time (wall × time scale); the sync runs
 * on the gateways' wall clock, so its lag is set against inter-arrival times converted to wall time (simulated ÷ time
 * scale) — a lag well below the same-key gap means a replica sees a peer's decision before that key comes back.
 */
final class ReplicaComparison {

    private ReplicaComparison() {
    }

    /** One N-replica run and its one-gateway baseline (absent when the baseline was not run). */
    record Pair(PolicyResult one, PolicyResult many) {
    }

    static List<Pair> pairs(List<PolicyResult> results) {
        List<Pair> out = new ArrayList<>();
        for (PolicyResult r : results) {
            if (r.gateways() < 2) {
                continue;
            }
            String base = baseLabel(r);
            Optional<PolicyResult> one = results.stream().filter(o -> o.gateways() == 1 && o.label().equals(base))
                    .findFirst();
            out.add(new Pair(one.orElse(null), r));
        }
        return out;
    }

    /** The label of the one-gateway run: the N run's label without its {@code " ×N"} suffix. */
    static String baseLabel(PolicyResult r) {
        String suffix = " ×" + r.gateways();
        return r.label().endsWith(suffix) ? r.label().substring(0, r.label().length() - suffix.length()) : r.label();
    }

    static void render(StringBuilder sb, BenchReport report) {
        List<Pair> pairs = pairs(report.results());
        if (pairs.isEmpty()) {
            return;
        }
        double scale = report.engines().timeScale();
        PolicyResult first = pairs.get(0).many();
        sb.append(String.format(Locale.ROOT, "%nN gateways next to one (same invocation, fresh engines each run; "
                + "%d replicas, %s round-robin front, every engine registered on every replica). Hit, stickiness "
                + "and share have no time base; TTFT is simulated ms (time scale %s).%n%n", first.gateways(),
                first.front() == null ? "client" : first.front(), MarkdownReport.num(scale)));
        sb.append("| policy | hit 1 → N | ×one | stickiness 1 → N | ×one | share max/mean 1 → N | Δ "
                + "| TTFT p50 ms 1 → N | TTFT p99 ms 1 → N |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Pair p : pairs) {
            PolicyResult one = p.one();
            PolicyResult n = p.many();
            sb.append("| ").append(n.label())
                    .append(" | ").append(arrow(one == null ? null : one.tokenHit(), n.tokenHit(), 3))
                    .append(" | ").append(MarkdownReport.f3(ratio(one == null ? null : one.tokenHit(), n.tokenHit())))
                    .append(" | ").append(arrow(one == null ? null : one.stickiness(), n.stickiness(), 3))
                    .append(" | ").append(MarkdownReport.f3(ratio(one == null ? null : one.stickiness(),
                            n.stickiness())))
                    .append(" | ").append(arrow(one == null ? null : one.shareMaxOverMean(), n.shareMaxOverMean(), 2))
                    .append(" | ").append(signed(one == null ? null : one.shareMaxOverMean(), n.shareMaxOverMean()))
                    .append(" | ").append(ms(one == null ? null : one.ttftP50Ms(), n.ttftP50Ms()))
                    .append(" | ").append(ms(one == null ? null : one.ttftP99Ms(), n.ttftP99Ms())).append(" |\n");
        }
        syncTable(sb, pairs, scale);
    }

    /** Sync samples per replica, and the inter-arrival times they are measured against (wall ms). */
    private static void syncTable(StringBuilder sb, List<Pair> pairs, double scale) {
        sb.append(String.format(Locale.ROOT, "%nSync against inter-arrival time (the sync runs on the wall clock; "
                + "arrivals converted to wall ms = simulated ÷ %s):%n%n", MarkdownReport.num(scale)));
        sb.append("| policy | mean inter-arrival, wall ms | same-key gap p5 / p50, wall ms | sync samples "
                + "(per replica; lags in ms) |\n|---|---:|---:|---|\n");
        for (Pair p : pairs) {
            PolicyResult n = p.many();
            Double interArrival = n.offeredRps() == null || n.offeredRps() == 0 ? null : 1e3 / n.offeredRps() / scale;
            sb.append("| ").append(n.label())
                    .append(" | ").append(MarkdownReport.ms(interArrival))
                    .append(" | ").append(MarkdownReport.ms(wall(n.sameKeyGapP05Ms(), scale))).append(" / ")
                    .append(MarkdownReport.ms(wall(n.sameKeyGapP50Ms(), scale)))
                    .append(" | ").append(samples(n.syncMetrics(), interArrival)).append(" |\n");
        }
    }

    /**
     * {@code name: v0 / v1 / v2} per sample across replicas, {@code <br>}-separated; lag samples (seconds) in ms with
     * their multiple of the inter-arrival time. "none (sync off)" without samples.
     */
    static String samples(List<Map<String, Double>> perReplica, Double interArrivalMs) {
        TreeSet<String> names = new TreeSet<>();
        perReplica.forEach(m -> names.addAll(m.keySet()));
        if (names.isEmpty()) {
            return "none (sync off)";
        }
        Map<String, String> lines = new LinkedHashMap<>();
        for (String name : names) {
            boolean lag = isLagSeconds(name);
            List<String> values = new ArrayList<>();
            double max = 0;
            for (Map<String, Double> m : perReplica) {
                Double v = m.get(name);
                values.add(v == null ? "–" : lag ? MarkdownReport.ms(v * 1e3) : compact(v));
                max = v == null ? max : Math.max(max, v);
            }
            String line = "`" + name + "` " + String.join(" / ", values);
            if (lag && interArrivalMs != null && interArrivalMs > 0) {
                line += String.format(Locale.ROOT, " (max %.2f× inter-arrival)", max * 1e3 / interArrivalMs);
            }
            lines.put(name, line);
        }
        return String.join("<br>", lines.values());
    }

    /** A lag in seconds: a {@code *lag*_seconds} sample other than a count or a sum. */
    static boolean isLagSeconds(String sample) {
        int brace = sample.indexOf('{');
        String metric = brace < 0 ? sample : sample.substring(0, brace);
        return metric.contains("lag") && (metric.endsWith("_seconds") || metric.endsWith("_seconds_max"));
    }

    private static Double wall(Double simulatedMs, double scale) {
        return simulatedMs == null ? null : simulatedMs / scale;
    }

    private static String compact(double v) {
        return v == Math.rint(v) && Math.abs(v) < 1e15 ? String.format(Locale.ROOT, "%,.0f", v)
                : String.format(Locale.ROOT, "%.3g", v);
    }

    private static Double ratio(Double one, Double many) {
        return one == null || many == null || one == 0 ? null : many / one;
    }

    private static String arrow(Double one, Double many, int digits) {
        String f = "%." + digits + "f";
        return (one == null ? "–" : String.format(Locale.ROOT, f, one)) + " → "
                + (many == null ? "–" : String.format(Locale.ROOT, f, many));
    }

    private static String signed(Double one, Double many) {
        return one == null || many == null ? "–" : String.format(Locale.ROOT, "%+.2f", many - one);
    }

    private static String ms(Double one, Double many) {
        return MarkdownReport.ms(one) + " → " + MarkdownReport.ms(many);
    }
}
