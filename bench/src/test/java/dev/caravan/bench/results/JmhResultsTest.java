package dev.caravan.bench.results;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.ObjectMapper;

/** What a JMH result file merges into the decision-cost section. */
class JmhResultsTest {

    private static final ResultsSection.Measured RUN = new ResultsSection.Measured(List.of("cache_aware"), "jmh",
            "abc1234", "2026-12-02", "2 cores (shared)", "1.0");

    @Test
    void sampleTimeIsAMedianAndAverageTimeAMeanReplacingTheRowOfTheSameParameters() throws IOException {
        ResultsSection old = new ResultsSection("cmd", List.of(), null, List.of(Map.of("operation", "cache_aware",
                "setting", "2,000-char prompts, defaults", "median_us", 9.0, "benchmark",
                "CacheAwareDecisionBenchmark", "params", "fleet=off, promptChars=2000")), null);
        var jmh = new ObjectMapper().readTree("""
                [{"benchmark": "dev.caravan.jmh.CacheAwareDecisionBenchmark.decide", "mode": "sample",
                  "params": {"fleet": "off", "promptChars": "2000"},
                  "primaryMetric": {"score": 58.4, "scoreError": 57.3, "scoreUnit": "us/op",
                                    "scorePercentiles": {"50.0": 7.52, "99.0": 609.03}}},
                 {"benchmark": "dev.caravan.jmh.CacheAwareDecisionBenchmark.decide", "mode": "sample",
                  "params": {"fleet": "on", "promptChars": "2000"},
                  "primaryMetric": {"score": 20, "scoreUnit": "us/op",
                                    "scorePercentiles": {"50.0": 16.1, "99.0": 40}}},
                 {"benchmark": "dev.caravan.jmh.ConsistentHashBenchmark.lookup", "mode": "avgt",
                  "params": {"workerCount": "8"},
                  "primaryMetric": {"score": 421.5, "scoreError": "NaN", "scoreUnit": "ns/op"}}]""");

        ResultsSection s = JmhResults.merge(old, jmh, RUN);

        assertThat(ResultsPage.table(s)).isEqualTo("""
                | operation | setting | median µs | also |
                |---|---|---:|---|
                | cache_aware | 2,000-char prompts, defaults | 7.52 | p99 609.0 µs |
                | cache_aware with replica sync | fleet=on, promptChars=2000 | 16.10 | p99 40.0 µs |
                | consistent_hashing | workerCount=8 | – | mean 422 ns |
                """);
        assertThat(s.measured()).containsExactly(RUN);
    }

    @Test
    void pivotLaysTheRanksOutAsMedianAndP99ColumnsAndReplacesTheRowsOfTheSamePromptAndPage() throws IOException {
        ResultsSection.Measured curve = new ResultsSection.Measured(List.of("kv_aware"), "jmh", "abc1234",
                "2026-12-08", "2 cores (shared)", "1.0");
        ResultsSection old = new ResultsSection("decision-cost.sh", List.of(new ResultsSection.Measured(
                List.of("kv_aware"), "jmh", "0ld0000", "2026-12-07", "2 cores (shared)", "7.0")), null, List.of(
                new LinkedHashMap<>(Map.of("prompt", "32,768 tokens", "page", 1, "median_us_8", 731.1, "p99_us_8",
                        900.0)),
                new LinkedHashMap<>(Map.of("prompt", "2,080 tokens", "page", 16, "median_us_8", 99.0))),
                null);
        var jmh = new ObjectMapper().readTree("""
                [{"benchmark": "dev.caravan.jmh.KvAwareDecisionBenchmark.decide", "mode": "sample",
                  "params": {"blockSize": "16", "discountSharedPrefix": "true", "promptTokens": "2080", "ranks": "64"},
                  "primaryMetric": {"scoreUnit": "us/op", "scorePercentiles": {"50.0": 9.94, "99.0": 40}}},
                 {"benchmark": "dev.caravan.jmh.KvAwareDecisionBenchmark.decide", "mode": "sample",
                  "params": {"blockSize": "16", "discountSharedPrefix": "true", "promptTokens": "2080", "ranks": "8"},
                  "primaryMetric": {"scoreUnit": "ms/op", "scorePercentiles": {"50.0": 0.0171, "99.0": 1}}},
                 {"benchmark": "dev.caravan.jmh.KvAwareDecisionBenchmark.decide", "mode": "sample",
                  "params": {"blockSize": "1", "discountSharedPrefix": "true", "promptTokens": "2080", "ranks": "8"},
                  "primaryMetric": {"scoreUnit": "us/op", "scorePercentiles": {"50.0": 1163.4, "99.0": 2000}}}]""");

        ResultsSection s = JmhResults.pivot(old, jmh, curve);

        assertThat(ResultsPage.table(s)).isEqualTo("""
                | prompt | page | 8 ranks: p50 / p99 µs | 64 ranks: p50 / p99 µs |
                |---|---:|---:|---:|
                | 32,768 tokens | 1 | 731.1 / 900.0 | – |
                | 2,080 tokens | 16 | 17.1 / 1,000.0 | 9.9 / 40.0 |
                | 2,080 tokens | 1 | 1,163.4 / 2,000.0 | – |
                """);
        assertThat(s.command()).isEqualTo("decision-cost.sh");
        assertThat(s.measured()).containsExactly(curve);
        assertThat(s.plots()).hasSize(1);
        assertThat(s.plots().get(0).x()).isEqualTo("curve");
        assertThat(s.plots().get(0).series()).containsExactly(new ResultsSection.Series("8 ranks", "median_us_8"),
                new ResultsSection.Series("64 ranks", "median_us_64"));
        assertThat(s.rows().get(1).get("curve")).isEqualTo("2,080 tokens, page 16");
    }

    @Test
    void theCacheAwareCurveLaysWorkersOutAsColumnsAndKeepsTheTreeMemoryCellsOfItsRows() throws IOException {
        Map<String, Object> memory = new LinkedHashMap<>(JmhResults.promptRow(8000));
        memory.put("bytes_per_char_8", 1.1);
        memory.put("bytes_per_char_64", 1.2);
        memory.put("median_us_8", 99.0);
        ResultsSection old = new ResultsSection("decision-cost.sh", List.of(), null, List.of(memory), null);
        var jmh = new ObjectMapper().readTree("""
                [{"benchmark": "dev.caravan.jmh.CacheAwareDecisionBenchmark.decide", "mode": "sample",
                  "params": {"promptChars": "8000", "treeBudget": "configured", "workers": "8"},
                  "primaryMetric": {"scoreUnit": "us/op", "scorePercentiles": {"50.0": 8.5}}},
                 {"benchmark": "dev.caravan.jmh.CacheAwareDecisionBenchmark.decide", "mode": "sample",
                  "params": {"promptChars": "8000", "treeBudget": "engine", "workers": "8"},
                  "primaryMetric": {"scoreUnit": "us/op", "scorePercentiles": {"50.0": 9.25}}},
                 {"benchmark": "dev.caravan.jmh.CacheAwareDecisionBenchmark.decide", "mode": "sample",
                  "params": {"promptChars": "8000", "treeBudget": "configured", "workers": "64"},
                  "primaryMetric": {"scoreUnit": "ns/op", "scorePercentiles": {"50.0": 10500}}},
                 {"benchmark": "dev.caravan.jmh.CacheAwareDecisionBenchmark.decide", "mode": "sample",
                  "params": {"promptChars": "128000", "treeBudget": "configured", "workers": "8"},
                  "primaryMetric": {"scoreUnit": "us/op", "scorePercentiles": {"50.0": 31}}}]""");

        ResultsSection s = JmhResults.cacheAwareCurve(old, jmh, RUN);

        String header = "| prompt | 8 workers: median µs, budget configured / engine "
                + "| 64 workers: median µs, budget configured / engine | tree bytes per stored char, 8 / 64 workers |\n";
        assertThat(ResultsPage.table(s)).isEqualTo(header + """
                |---|---:|---:|---:|
                | 8,000 chars | 8.5 / 9.3 | – | 1.10 / 1.20 |
                | 128,000 chars | – | – | – |
                """);
        assertThat(s.plots()).singleElement().satisfies(p -> assertThat(p.series()).extracting(
                ResultsSection.Series::key).containsExactly("median_us_8", "median_us_64"));
        assertThat(s.measured()).containsExactly(RUN);
    }

    @Test
    void ingestTabulatesThroughputAndLookupPercentilesPerRankCount() throws IOException {
        ResultsSection.Measured run = new ResultsSection.Measured(List.of("KV-event ingest"), "jmh", "abc1234",
                "2026-12-08", "2 cores (shared)", "3.0");
        var jmh = new ObjectMapper().readTree("""
                [{"benchmark": "dev.caravan.jmh.KvIngestBenchmark.ingest", "mode": "thrpt",
                  "params": {"ingestRate": "1000000", "ranks": "64"},
                  "primaryMetric": {"score": 1250000.4, "scoreUnit": "ops/s"},
                  "secondaryMetrics": {"events": {"score": 3000000}, "cpuNanos": {"score": 2000000000}}},
                 {"benchmark": "dev.caravan.jmh.KvIngestBenchmark.lookupIdle", "mode": "sample",
                  "params": {"ingestRate": "1000000", "ranks": "64"},
                  "primaryMetric": {"score": 3, "scoreUnit": "us/op", "scorePercentiles": {"50.0": 2.5, "99.0": 4.0}},
                  "secondaryMetrics": {}},
                 {"benchmark": "dev.caravan.jmh.KvIngestBenchmark.underIngest", "mode": "sample",
                  "params": {"ingestRate": "1000000", "ranks": "64"},
                  "primaryMetric": {"score": 9, "scoreUnit": "us/op", "scorePercentiles": {"50.0": 3, "99.0": 30}},
                  "secondaryMetrics": {"lookupUnderIngest:p0.50": {"score": 2.75},
                                       "lookupUnderIngest:p0.99": {"score": 12.0},
                                       "pacedIngest": {"score": 40.0}}}]""");

        ResultsSection s = JmhResults.ingest(null, jmh, run);

        assertThat(ResultsPage.table(s)).isEqualTo("""
                | ranks indexed | ingest, block events/s: wall / CPU time (one thread) | lookup idle p50 / p99 µs \
                | paced ingest: target / achieved events/s | lookup meanwhile p50 / p99 µs | p99 busy / idle |
                |---|---:|---:|---:|---:|---:|
                | 64 | 1,250,000 / 1,500,000 | 2.5 / 4.0 | 1,000,000 / 800,000 | 2.8 / 12.0 | 3.0x |
                """);
        assertThat(s.command()).isEqualTo("jmh");
    }
}
