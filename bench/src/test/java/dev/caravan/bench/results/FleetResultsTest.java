package dev.caravan.bench.results;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.caravan.bench.report.BenchReport;

/** What {@code --results} merges into a section file, for one-gateway runs and for N-replica runs. */
class FleetResultsTest {

    private static final ResultsSection.Measured DAY_ONE = new ResultsSection.Measured(List.of("b2b uniform"), "cmd",
            "abc1234", "2026-12-02", "2 cores (shared)", "1.0 to 3.0");

    @Test
    void aWorkloadIsOneRowWithAColumnPerPolicy() throws IOException {
        ResultsSection s = FleetResults.merge(null, report(1, 0.10, 0.80), "b2b uniform", DAY_ONE, "hit-rate.png");
        assertThat(s.command()).isEqualTo("./caravan bench b2b");
        assertThat(s.columns()).extracting(ResultsSection.Column::header).containsExactly("workload",
                "engine tokens", "round_robin: hit · of Belady · share · TTFT p99 ms", "cache_aware: hit · of Belady · share · TTFT p99 ms",
                "pooled LRU / Belady", "prefix-hit bounds M/W / MN/W", "sent late p99 ms", "load average");
        assertThat(ResultsPage.table(s)).contains("| b2b uniform | qwen3 | 0.100 · 0.13 · 1.00 · 90 | "
                + "0.800 · 1.04 · 1.06 · 250 | 0.743 / 0.771 | 0.104 / 0.832 | 185 | 1.0 to 3.0 |");
        assertThat(s.plots()).singleElement().satisfies(p -> {
            assertThat(p.file()).isEqualTo("hit-rate.png");
            assertThat(p.series()).extracting(ResultsSection.Series::key)
                    .containsExactly("round_robin.hit", "cache_aware.hit", "belady");
        });
    }

    @Test
    void aRowOfTheSameLabelIsReplacedOthersAppendedAndEachRowNamesOnlyTheRunThatMeasuredIt() throws IOException {
        ResultsSection s = FleetResults.merge(null, report(1, 0.10, 0.80), "b2b uniform", DAY_ONE, "h.png");
        s = FleetResults.merge(s, report(1, 0.20, 0.90), "rag",
                new ResultsSection.Measured(List.of("rag"), "cmd", "abc1234", "2026-12-02", "2 cores (shared)", "0.5 to 2.0"),
                "h.png");
        s = FleetResults.merge(s, report(1, 0.11, 0.81), "b2b uniform",
                new ResultsSection.Measured(List.of("b2b uniform"), "cmd", "def5678", "2026-12-03", "2 cores (shared)", "4.0"),
                "h.png");
        assertThat(s.rows()).extracting(r -> r.get("workload")).containsExactly("b2b uniform", "rag");
        assertThat(s.rows().get(0).get("cache_aware.hit")).isEqualTo(0.81);
        assertThat(s.measured()).extracting(ResultsSection.Measured::rows, ResultsSection.Measured::loadAverage)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(List.of("rag"), "0.5 to 3.0"),
                        org.assertj.core.groups.Tuple.tuple(List.of("b2b uniform"), "4.0"));
    }

    @Test
    void replicaRunsPairEachPolicyWithItsOneGatewayRun() throws IOException {
        ResultsSection s = FleetResults.merge(null, report(3, 0.78, 0.79), "b2b uniform", DAY_ONE, "replicas.png");
        assertThat(ResultsPage.table(s)).isEqualTo("""
                | workload | engine tokens | policy | sync | hit 1 → N | ×one | stickiness 1 → N | share max/mean 1 → N \
                | N | load average |
                |---|---|---|---|---:|---:|---:|---:|---:|---|
                | b2b uniform | qwen3 | cache_aware | hazelcast | 0.780 → 0.790 | 1.013 | 1.000 → 0.999 | 1.06 → 1.08 | 3 | 1.0 to 3.0 |
                """);
    }

    @Test
    void noisyNeighbourRunsAreOneRowEachSetAgainstTheAloneRunAndTheirQuota() throws IOException {
        BenchReport report = BenchReport.mapper().readValue("""
                {"command": "./caravan bench noisy", "mode": "http", "workload": "noisy",
                 "machine": {"cores": "2", "load_average_start": "1.0", "load_average_end": "3.0"},
                 "results": [{"label": "fifo (quiet tenants alone)", "settings": {"load_average": "2.5 → 1.0"}},
                             {"label": "fifo", "settings": {"load_average": "1.0 → 3.0"}},
                             {"label": "flow control", "settings": {"load_average": "3.0 → 2.0"}}],
                 "noisy_neighbour": [
                   {"label": "fifo (quiet tenants alone)", "quiet_ttft_p50_ms": 90, "quiet_ttft_p99_ms": 250,
                    "quiet_measured": 300, "quiet_failed": 0, "minutes": 5},
                   {"label": "fifo", "quiet_ttft_p50_ms": 15000, "quiet_ttft_p99_ms": 25000, "quiet_measured": 300,
                    "quiet_failed": 1, "noisy_sent": 700, "noisy_admitted": 700, "noisy_throttled": 0, "minutes": 1.25},
                   {"label": "flow control", "quiet_ttft_p50_ms": 91, "quiet_ttft_p99_ms": 290, "quiet_measured": 300,
                    "quiet_failed": 0, "noisy_sent": 700, "noisy_admitted": 75, "noisy_throttled": 625,
                    "minutes": 1.25, "quota_per_minute": 60}]}""", BenchReport.class);
        ResultsSection.Measured m = new ResultsSection.Measured(List.of("quiet tenants alone", "everyone, fifo",
                "everyone, flow control"), "cmd", "abc1234", "2026-12-02", "2 cores (shared)", "1.0 to 3.0");
        ResultsSection old = new ResultsSection("./caravan bench noisy", List.of(new ResultsSection.Measured(
                List.of("quiet tenants alone", "everyone, fifo"), "old", "0000000", "2026-11-01", "x", "9")),
                List.of(), List.of(), List.of());

        ResultsSection s = FleetResults.merge(old, report, "ignored", m, "noisy.png");

        assertThat(ResultsPage.table(s)).isEqualTo("""
                | run | quiet tenants TTFT p50 / p99 ms | p99 vs alone | quiet failed | noisy sent / admitted / 429 \
                | noisy admitted per minute | vs its quota per minute | load average |
                |---|---:|---:|---:|---:|---:|---:|---|
                | quiet tenants alone | 90 / 250 | 1.00× | 0 of 300 | – | – | – | 1.0 to 2.5 |
                | everyone, fifo | 15,000 / 25,000 | 100.00× | 1 of 300 | 700 / 700 / 0 | 560 | – | 1.0 to 3.0 |
                | everyone, flow control | 91 / 290 | 1.16× | 0 of 300 | 700 / 75 / 625 | 60 | 1.00× of 60 | 2.0 to 3.0 |
                """);
        assertThat(s.plots()).isEmpty();
        assertThat(s.measured()).containsExactly(m);
    }

    @Test
    void loadAverageRangesWiden() {
        assertThat(FleetResults.widen("1.2 to 3.4", "0.6 to 2.0")).isEqualTo("0.6 to 3.4");
        assertThat(FleetResults.widen(null, "4.0")).isEqualTo("4.0");
        assertThat(FleetResults.widen("2", "2.0")).isEqualTo("2.0");
        assertThat(FleetResults.widen("7.52", "7.48")).isEqualTo("7.5");
    }

    /**
     * A report of two runs: with {@code gateways} 1, round_robin at {@code first} and cache_aware at {@code second};
     * otherwise cache_aware behind one gateway at {@code first} and behind N syncing replicas at {@code second}.
     */
    private static BenchReport report(int gateways, double first, double second) throws IOException {
        String runs = gateways == 1
                ? run("round_robin", 1, first, 0.13, 1.0, 90, null) + "," + run("cache_aware", 1, second, 1.04, 1.056, 250, null)
                : run("cache_aware", 1, first, 1.0, 1.056, 250, 1.0) + ","
                        + run("cache_aware ×" + gateways, gateways, second, 1.0, 1.08, 260, 0.999);
        return BenchReport.mapper().readValue("""
                {"command": "./caravan bench b2b", "mode": "http", "workload": "b2b",
                 "engines": {"count": 8, "tokenizer": "qwen3"},
                 "analytic": {"round_robin_hit": 0.104, "affinity_hit": 0.832},
                 "machine": {"cores": "2", "load_average_start": "1.0", "load_average_end": "3.0"},
                 "results": [%s]}""".formatted(runs), BenchReport.class);
    }

    private static String run(String label, int gateways, double hit, double ofBelady, double share, double p99,
                              Double stickiness) {
        return """
                {"label": "%s", "gateways": %d, "token_hit": %s, "hit_of_belady": %s, "share_max_over_mean": %s,
                 "ttft_p99_ms": %s, "send_lag_p99_ms": 185.4, "pooled_lru_hit": 0.743, "belady_hit": 0.771,
                 "stickiness": %s, "settings": %s}""".formatted(label, gateways, hit, ofBelady, share, p99,
                stickiness, gateways > 1 ? "{\"sync\": \"hazelcast\"}" : "{}");
    }
}
