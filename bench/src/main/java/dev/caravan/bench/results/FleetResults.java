package dev.caravan.bench.results;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import dev.caravan.bench.report.BenchReport;
import dev.caravan.bench.report.DecisionQualityRows;
import dev.caravan.bench.report.PolicyResult;

/**
 * Turns one {@code ./caravan bench} report into rows of a results-page section and merges them into its file
 * ({@code --results FILE --results-row LABEL}), so a section measured over several invocations (one per workload)
 * is written by those invocations. Two shapes, chosen by the report:
 *
 * <ul>
 *   <li><b>policies</b> (one gateway per policy): one row per workload, whose tokens the engines counted (the model
 *       they loaded, or {@code synthetic}), a column per policy with its hit (all prompt
 *       tokens), hit ÷ the Belady ceiling, share max/mean and TTFT p99; the pooled-LRU and Belady ceilings; the
 *       design document's bounds where the workload has them; how late the load generator sent; the load average. A
 *       bar plot of the hit rates per policy per workload goes with it.</li>
 *   <li><b>replicas</b> ({@code --gateways N}): one row per policy (and the engines' tokens), its one-gateway run
 *       next to its N-replica run
 *       (hit, ×one, stickiness, share max/mean), with the replicas' sync. A bar plot of hit, one gateway against N.</li>
 *   <li><b>noisy neighbour</b> (the {@code noisy} workload): one row per run, {@link NoisyNeighbourResults}.</li>
 * </ul>
 *
 * A row replaces the row of the same label (and policy) already in the file; the file's columns and plots are
 * rebuilt from all its rows. Each invocation records a {@link ResultsSection.Measured} entry: its commit (from
 * {@code git rev-parse} in the working directory, when there is one), the day, the machine and the load average;
 * entries of the same commit, day and machine merge.
 */
public final class FleetResults {

    private FleetResults() {
    }

    /**
     * Merges the report's rows into {@code file} (created when absent): under {@code rowLabel}, or under the runs'
     * own names for the noisy-neighbour shape.
     */
    public static ResultsSection merge(Path file, BenchReport report, String rowLabel) {
        ResultsSection old = Files.isRegularFile(file) ? ResultsSection.read(file) : null;
        List<String> labels = report.noisyNeighbour().isEmpty() ? List.of(rowLabel)
                : NoisyNeighbourResults.rows(report).stream().map(r -> (String) r.get("run")).toList();
        ResultsSection.Measured m = new ResultsSection.Measured(labels, report.command(), gitCommit(),
                LocalDate.now(ZoneOffset.UTC).toString(), machine(report), loadAverage(report));
        ResultsSection merged = merge(old, report, rowLabel, m, file.getFileName().toString().replace(".json", ".png"));
        merged.write(file);
        return merged;
    }

    /** The merge itself, without files: {@code old} may be null. */
    public static ResultsSection merge(ResultsSection old, BenchReport report, String rowLabel,
                                ResultsSection.Measured measured, String plotFile) {
        boolean noisy = !report.noisyNeighbour().isEmpty();
        boolean replicas = !noisy && report.results().stream().anyMatch(r -> r.gateways() > 1);
        List<Map<String, Object>> rows = noisy ? NoisyNeighbourResults.rows(report)
                : replicas ? replicaRows(report, rowLabel) : List.of(policyRow(report, rowLabel));
        List<String> rowKeys = noisy ? List.of("run") : replicas ? List.of("workload", "policy", "sync")
                : List.of("workload");
        ResultsSection base = old != null ? old
                : new ResultsSection(report.command(), List.of(), List.of(), List.of(), List.of());
        ResultsSection withRows = base.withRows(rowKeys, rows);
        List<ResultsSection.Measured> ms = mergeMeasured(withRows.measured(), measured);
        if (noisy) {
            return NoisyNeighbourResults.layout(withRows, ms);
        }
        return replicas ? replicaLayout(withRows, ms, plotFile) : policyLayout(withRows, ms, plotFile);
    }

    static Map<String, Object> policyRow(BenchReport report, String rowLabel) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("workload", rowLabel);
        row.put("tokens", tokens(report));
        double late = 0;
        for (PolicyResult r : report.results()) {
            row.put(r.label() + ".hit", r.tokenHit());
            row.put(r.label() + ".of_belady", r.hitOfBelady());
            row.put(r.label() + ".share", r.shareMaxOverMean());
            row.put(r.label() + ".ttft_p99_ms", r.ttftP99Ms());
            Double exact = DecisionQualityRows.exactShare(r.qualityMetrics(), "groups");
            if (exact != null) {
                row.put(r.label() + ".exact", exact);
                row.put(r.label() + ".exact_full_attention",
                        DecisionQualityRows.exactShare(r.qualityMetrics(), "full_attention"));
            }
            row.putIfAbsent("pooled_lru", r.pooledLruHit());
            row.putIfAbsent("belady", r.beladyHit());
            late = Math.max(late, r.sendLagP99Ms() == null ? 0 : r.sendLagP99Ms());
        }
        if (report.analytic() != null) {
            row.put("bound_round_robin", report.analytic().roundRobinHit());
            row.put("bound_affinity", report.analytic().affinityHit());
        }
        row.put("sent_late_p99_ms", late);
        row.put("load_average", loadAverage(report));
        return row;
    }

    static List<Map<String, Object>> replicaRows(BenchReport report, String rowLabel) {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (PolicyResult many : report.results()) {
            if (many.gateways() < 2) {
                continue;
            }
            String base = many.label().replace(" ×" + many.gateways(), "");
            PolicyResult one = report.results().stream().filter(o -> o.gateways() == 1 && o.label().equals(base))
                    .findFirst().orElse(null);
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("workload", rowLabel);
            row.put("tokens", tokens(report));
            row.put("policy", base);
            row.put("sync", many.settings().containsKey("sync") ? "hazelcast" : "none");
            row.put("replicas", many.gateways());
            row.put("hit_one", one == null ? null : one.tokenHit());
            row.put("hit_many", many.tokenHit());
            row.put("hit_ratio", one == null || one.tokenHit() == null || many.tokenHit() == null ? null
                    : many.tokenHit() / one.tokenHit());
            row.put("stickiness_one", one == null ? null : one.stickiness());
            row.put("stickiness_many", many.stickiness());
            row.put("share_one", one == null ? null : one.shareMaxOverMean());
            row.put("share_many", many.shareMaxOverMean());
            row.put("load_average", loadAverage(report));
            rows.add(row);
        }
        return rows;
    }

    private static ResultsSection policyLayout(ResultsSection s, List<ResultsSection.Measured> ms, String plotFile) {
        Set<String> policies = new LinkedHashSet<>();
        for (Map<String, Object> row : s.rows()) {
            for (String k : row.keySet()) {
                if (k.endsWith(".hit")) {
                    policies.add(k.substring(0, k.length() - ".hit".length()));
                }
            }
        }
        List<ResultsSection.Column> cols = new ArrayList<>();
        cols.add(ResultsSection.Column.of("workload", "workload"));
        cols.add(ResultsSection.Column.of("engine tokens", "tokens"));
        List<ResultsSection.Series> series = new ArrayList<>();
        for (String p : policies) {
            cols.add(ResultsSection.Column.of(p + ": hit · of Belady · share · TTFT p99 ms",
                    "%.3f · %.2f · %.2f · %,.0f", p + ".hit", p + ".of_belady", p + ".share", p + ".ttft_p99_ms"));
            series.add(new ResultsSection.Series(p, p + ".hit"));
        }
        for (String p : policies) {
            if (s.rows().stream().anyMatch(r -> r.get(p + ".exact") != null)) {
                cols.add(ResultsSection.Column.of(p + ": expected = reported, by groups / by full attention",
                        "%.3f / %.3f", p + ".exact", p + ".exact_full_attention"));
            }
        }
        cols.add(ResultsSection.Column.of("pooled LRU / Belady", "%.3f / %.3f", "pooled_lru", "belady"));
        series.add(new ResultsSection.Series("Belady ceiling", "belady"));
        if (s.rows().stream().anyMatch(r -> r.get("bound_affinity") != null)) {
            cols.add(ResultsSection.Column.of("prefix-hit bounds M/W / MN/W", "%.3f / %.3f", "bound_round_robin",
                    "bound_affinity"));
        }
        cols.add(ResultsSection.Column.of("sent late p99 ms", "%,.0f", "sent_late_p99_ms"));
        cols.add(ResultsSection.Column.of("load average", "load_average"));
        ResultsSection.Plot plot = new ResultsSection.Plot(plotFile, "bar",
                "Hit rate (all prompt tokens) per policy per workload", "workload", "hit rate", 0.0, 1.0, series);
        return new ResultsSection(s.command(), ms, cols, s.rows(), List.of(plot));
    }

    private static ResultsSection replicaLayout(ResultsSection s, List<ResultsSection.Measured> ms, String plotFile) {
        List<ResultsSection.Column> cols = List.of(
                ResultsSection.Column.of("workload", "workload"),
                ResultsSection.Column.of("engine tokens", "tokens"),
                ResultsSection.Column.of("policy", "policy"),
                ResultsSection.Column.of("sync", "sync"),
                ResultsSection.Column.of("hit 1 → N", "%.3f → %.3f", "hit_one", "hit_many"),
                ResultsSection.Column.of("×one", "%.3f", "hit_ratio"),
                ResultsSection.Column.of("stickiness 1 → N", "%.3f → %.3f", "stickiness_one", "stickiness_many"),
                ResultsSection.Column.of("share max/mean 1 → N", "%.2f → %.2f", "share_one", "share_many"),
                ResultsSection.Column.of("N", "%.0f", "replicas"),
                ResultsSection.Column.of("load average", "load_average"));
        List<Map<String, Object>> rows = new ArrayList<>();
        for (Map<String, Object> r : s.rows()) {
            Map<String, Object> withLabel = new LinkedHashMap<>(r);
            withLabel.put("plot_label", r.get("policy") + ", " + r.get("workload")
                    + ("none".equals(r.get("sync")) ? ", no sync" : ""));
            rows.add(withLabel);
        }
        ResultsSection.Plot plot = new ResultsSection.Plot(plotFile, "bar",
                "Hit rate behind one gateway and behind N replicas", "plot_label", "hit rate", 0.0, 1.0,
                List.of(new ResultsSection.Series("one gateway", "hit_one"),
                        new ResultsSection.Series("N replicas", "hit_many")));
        return new ResultsSection(s.command(), ms, cols, rows, List.of(plot));
    }

    /**
     * Adds {@code m}, merging it into an entry of the same commit, day and machine; an older entry whose rows {@code m}
     * all measured again is dropped.
     */
    static List<ResultsSection.Measured> mergeMeasured(List<ResultsSection.Measured> old, ResultsSection.Measured m) {
        List<ResultsSection.Measured> out = new ArrayList<>();
        boolean merged = false;
        for (ResultsSection.Measured o : old) {
            if (!merged && same(o.commit(), m.commit()) && same(o.date(), m.date()) && same(o.machine(), m.machine())) {
                Set<String> rows = new LinkedHashSet<>(o.rows() == null ? List.of() : o.rows());
                rows.addAll(m.rows() == null ? List.of() : m.rows());
                out.add(new ResultsSection.Measured(List.copyOf(rows), o.command(), o.commit(), o.date(),
                        o.machine(), widen(o.loadAverage(), m.loadAverage())));
                merged = true;
            } else if (o.rows() == null || m.rows() == null) {
                out.add(o);
            } else {
                // the new run's rows are no longer the older run's figures
                List<String> rest = o.rows().stream().filter(r -> !m.rows().contains(r)).toList();
                if (!rest.isEmpty()) {
                    out.add(new ResultsSection.Measured(rest, o.command(), o.commit(), o.date(), o.machine(),
                            o.loadAverage()));
                }
            }
        }
        if (!merged) {
            out.add(m);
        }
        return out;
    }

    private static boolean same(String a, String b) {
        return a == null ? b == null : a.equals(b);
    }

    /** The range covering two load-average ranges written {@code "a to b"}, to one decimal; one figure when they agree. */
    public static String widen(String a, String b) {
        if (a == null || b == null) {
            return a == null ? b : a;
        }
        double lo = Double.MAX_VALUE;
        double hi = -1;
        for (String part : (a + " to " + b).split(" to ")) {
            try {
                double v = Double.parseDouble(part.trim());
                lo = Math.min(lo, v);
                hi = Math.max(hi, v);
            } catch (NumberFormatException e) {
                return a + "; " + b;
            }
        }
        String low = num(lo);
        String high = num(hi);
        return low.equals(high) ? low : low + " to " + high;
    }

    private static String num(double v) {
        return String.format(java.util.Locale.ROOT, "%.1f", v);
    }

    /** Whose tokens the engines counted, or null when the report does not say. */
    private static String tokens(BenchReport report) {
        return report.engines() == null ? null : report.engines().tokenizer();
    }

    private static String loadAverage(BenchReport report) {
        String start = report.machine().get("load_average_start");
        String end = report.machine().get("load_average_end");
        return start == null ? end : end == null ? start : widen(start, end);
    }

    private static String machine(BenchReport report) {
        String cores = report.machine().get("cores");
        String java = report.machine().get("java");
        return (cores == null ? "" : cores + " cores (shared)") + (java == null ? "" : ", " + java);
    }

    /** The working directory's commit, or null outside a git checkout. */
    static String gitCommit() {
        try {
            Process p = new ProcessBuilder("git", "rev-parse", "--short", "HEAD").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0 && out.matches("[0-9a-f]{4,40}") ? out : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }
}
