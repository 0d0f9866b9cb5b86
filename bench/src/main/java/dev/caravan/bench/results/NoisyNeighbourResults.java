package dev.caravan.bench.results;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.caravan.bench.report.BenchReport;
import dev.caravan.bench.report.NoisyNeighbourSummary;
import dev.caravan.bench.report.PolicyResult;

/**
 * The noisy-neighbour shape of a results section ({@link FleetResults} picks it for a report with noisy-neighbour
 * summaries): one row per run, the quiet tenants alone first ({@value #ALONE}), then each policy entry with the noisy
 * tenant ({@code everyone, LABEL}): the quiet tenants' TTFT p50 and p99 (simulated ms), their p99 as a multiple of the
 * alone run's, how many of their requests failed, what the noisy tenant sent, had admitted and was answered 429, its
 * admitted rate per simulated minute against the quota of its entry's tenants file, and the run's load average.
 */
final class NoisyNeighbourResults {

    /** The row of the run without the noisy tenant. */
    static final String ALONE = "quiet tenants alone";

    private NoisyNeighbourResults() {
    }

    static List<Map<String, Object>> rows(BenchReport report) {
        List<NoisyNeighbourSummary> runs = report.noisyNeighbour();
        Double aloneP99 = runs.isEmpty() ? null : runs.get(0).quietTtftP99Ms();
        List<Map<String, Object>> rows = new ArrayList<>();
        for (int i = 0; i < runs.size(); i++) {
            NoisyNeighbourSummary s = runs.get(i);
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("run", i == 0 ? ALONE : "everyone, " + s.label());
            row.put("quiet_ttft_p50_ms", s.quietTtftP50Ms());
            row.put("quiet_ttft_p99_ms", s.quietTtftP99Ms());
            row.put("p99_vs_alone", aloneP99 == null || aloneP99 <= 0 || s.quietTtftP99Ms() == null ? null
                    : s.quietTtftP99Ms() / aloneP99);
            row.put("quiet_failed", s.quietFailed());
            row.put("quiet_measured", s.quietMeasured());
            if (s.noisySent() > 0) {
                row.put("noisy_sent", s.noisySent());
                row.put("noisy_admitted", s.noisyAdmitted());
                row.put("noisy_429", s.noisyThrottled());
                row.put("noisy_per_minute", s.noisyAdmittedPerMinute());
            }
            if (s.noisySent() > 0 && s.quotaPerMinute() > 0) {
                row.put("noisy_quota_per_minute", s.quotaPerMinute());
                row.put("noisy_vs_quota", s.noisyAdmittedPerMinute() / s.quotaPerMinute());
            }
            row.put("load_average", loadAverage(report, s.label()));
            rows.add(row);
        }
        return rows;
    }

    static ResultsSection layout(ResultsSection s, List<ResultsSection.Measured> ms) {
        List<ResultsSection.Column> cols = List.of(
                ResultsSection.Column.of("run", "run"),
                ResultsSection.Column.of("quiet tenants TTFT p50 / p99 ms", "%,.0f / %,.0f", "quiet_ttft_p50_ms",
                        "quiet_ttft_p99_ms"),
                ResultsSection.Column.of("p99 vs alone", "%.2f×", "p99_vs_alone"),
                ResultsSection.Column.of("quiet failed", "%.0f of %.0f", "quiet_failed", "quiet_measured"),
                ResultsSection.Column.of("noisy sent / admitted / 429", "%.0f / %.0f / %.0f", "noisy_sent",
                        "noisy_admitted", "noisy_429"),
                ResultsSection.Column.of("noisy admitted per minute", "%.0f", "noisy_per_minute"),
                ResultsSection.Column.of("vs its quota per minute", "%.2f× of %.0f", "noisy_vs_quota",
                        "noisy_quota_per_minute"),
                ResultsSection.Column.of("load average", "load_average"));
        return new ResultsSection(s.command(), ms, cols, s.rows(), List.of());
    }

    /** The load average over the run of this label, from its result's settings ({@code "a → b"}). */
    private static String loadAverage(BenchReport report, String label) {
        for (PolicyResult r : report.results()) {
            String range = r.settings() == null ? null : r.settings().get("load_average");
            if (r.label().equals(label) && range != null) {
                String[] ends = range.split(" → ");
                return ends.length == 2 ? FleetResults.widen(ends[0], ends[1]) : range;
            }
        }
        return null;
    }
}
