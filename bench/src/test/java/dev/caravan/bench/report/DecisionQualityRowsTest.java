package dev.caravan.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class DecisionQualityRowsTest {

    /** Two replicas' samples as Micrometer's Prometheus exposition spells them. */
    private static final List<Map<String, Double>> REPLICAS = List.of(
            Map.of("caravan_decision_expected_tokens_total{policy=\"kv_aware\"}", 600.0,
                    "caravan_decision_reachable_tokens_total{policy=\"kv_aware\"}", 800.0,
                    "caravan_decision_captured_tokens_total{policy=\"kv_aware\"}", 500.0,
                    "caravan_decision_capture_ratio{policy=\"kv_aware\"}", 0.6,
                    "caravan_shadow_decisions_total{agrees=\"true\",shadow=\"cache_aware\"}", 3.0,
                    "caravan_shadow_decisions_total{agrees=\"false\",shadow=\"cache_aware\"}", 1.0,
                    "caravan_shadow_expected_tokens_total{shadow=\"cache_aware\"}", 400.0,
                    "caravan_shadow_baseline_tokens_total{shadow=\"cache_aware\"}", 600.0,
                    "caravan_shadow_reachable_tokens_total{shadow=\"cache_aware\"}", 800.0),
            Map.of("caravan_decision_expected_tokens_total{policy=\"kv_aware\"}", 200.0,
                    "caravan_decision_reachable_tokens_total{policy=\"kv_aware\"}", 200.0,
                    "caravan_decision_captured_tokens_total{policy=\"kv_aware\"}", 100.0));

    @Test
    void sumsTheReplicasCountersAndLeavesGaugesOut() {
        Map<String, Double> sum = DecisionQualityRows.sum(REPLICAS);

        assertThat(sum).containsEntry("caravan_decision_reachable_tokens_total{policy=\"kv_aware\"}", 1000.0)
                .doesNotContainKey("caravan_decision_capture_ratio{policy=\"kv_aware\"}").hasSize(8);
    }

    @Test
    void rendersCapturedAndExpectedOverReachablePerPolicyAndEachShadowAgainstTheLivePicks() {
        Map<String, Double> sum = DecisionQualityRows.sum(REPLICAS);
        StringBuilder sb = new StringBuilder();
        PolicyResult run = new PolicyResult("kv_aware", "caravan", "kv_aware", Map.of(), Map.of(), 10, 10, 10, 0,
                null, null, null, null, null, null, null, null, null, List.of(), null, null, null, null, null, 0, 0,
                0, 0, Map.of(), null, 1.0, 1, null, null, List.of(), null, null, List.of(), null, null, null,
                List.of(), sum);
        DecisionQualityRows.render(sb, new BenchReport("cmd", "http", "b2b", "b2b", Map.of(), null, null,
                List.of(run), List.of(), Map.of(), List.of()));

        assertThat(sb.toString())
                .contains("| kv_aware | kv_aware | 800 | 1,000 | 600 | 0.600 | 0.800 |")
                .contains("| kv_aware | cache_aware | 0.750 | 0.500 | 0.750 |");
    }

    @Test
    void runsWithoutTheCountersAddNoSection() {
        StringBuilder sb = new StringBuilder();
        PolicyResult run = new PolicyResult("rr", "caravan", "round_robin", Map.of(), Map.of(), 10, 10, 10, 0,
                null, null, null, null, null, null, null, null, null, List.of(), null, null, null, null, null, 0, 0,
                0, 0, Map.of(), null, 1.0, 1, null, null, List.of(), null, null, List.of(), null, null, null,
                List.of(), Map.of());
        DecisionQualityRows.render(sb, new BenchReport("cmd", "http", "b2b", "b2b", Map.of(), null, null,
                List.of(run), List.of(), Map.of(), List.of()));

        assertThat(sb).isEmpty();
    }

    @Test
    void theExactShareCountsEveryLayoutOfOneReadingAndIsNullWithoutPredictions() {
        Map<String, Double> samples = Map.of(
                "caravan_decision_predictions_total{layout=\"full+mamba\",outcome=\"exact\",policy=\"kv_aware\","
                        + "rules=\"groups\"}", 9.0,
                "caravan_decision_predictions_total{layout=\"full\",outcome=\"exact\",policy=\"kv_aware\","
                        + "rules=\"groups\"}", 1.0,
                "caravan_decision_predictions_total{layout=\"full+mamba\",outcome=\"under\",policy=\"kv_aware\","
                        + "rules=\"groups\"}", 2.0,
                "caravan_decision_predictions_total{layout=\"full+mamba\",outcome=\"over\",policy=\"kv_aware\","
                        + "rules=\"full_attention\"}", 12.0);

        assertThat(DecisionQualityRows.exactShare(samples, "groups")).isEqualTo(10.0 / 12.0);
        assertThat(DecisionQualityRows.exactShare(samples, "full_attention")).isEqualTo(0.0);
        assertThat(DecisionQualityRows.exactShare(Map.of(), "groups")).isNull();
    }
}
