package dev.caravan.bench.results;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
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
}
