package dev.caravan.bench.synccost;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class SyncSamplesTest {

    private static final String P50 = "caravan_sync_lag_seconds{channel=\"decisions\",quantile=\"0.5\"}";
    private static final String P99 = "caravan_sync_lag_seconds{channel=\"decisions\",quantile=\"0.99\"}";
    private static final String COUNT = "caravan_sync_lag_seconds_count{channel=\"decisions\"}";
    private static final String SUM = "caravan_sync_lag_seconds_sum{channel=\"decisions\"}";
    private static final String LOADS = "caravan_sync_messages_received_total{channel=\"loads\"}";
    private static final String BATCHES = "caravan_sync_messages_received_total{channel=\"decisions\"}";

    @Test
    void takesTheWindowsGrowthAndTheReplicasQuantiles() {
        List<Map<String, Double>> before = List.of(
                Map.of(COUNT, 100.0, SUM, 1.0, LOADS, 10.0, BATCHES, 50.0),
                Map.of(COUNT, 200.0, SUM, 2.0, LOADS, 20.0, BATCHES, 60.0),
                Map.of(COUNT, 0.0, SUM, 0.0));
        List<Map<String, Double>> after = List.of(
                Map.of(P50, 0.004, P99, 0.020, COUNT, 300.0, SUM, 2.5, LOADS, 110.0, BATCHES, 150.0),
                Map.of(P50, 0.008, P99, 0.064, COUNT, 400.0, SUM, 4.5, LOADS, 70.0, BATCHES, 110.0),
                Map.of(P50, 0.006, P99, 0.016, COUNT, 100.0, SUM, 1.0));
        SyncSamples s = SyncSamples.of(before, after);
        assertThat(s.lagP50Ms()).isEqualTo(6.0);
        assertThat(s.lagP99Ms()).isEqualTo(64.0);
        // 200 + 200 + 100 decisions taking 1.5 + 2.5 + 1.0 s together
        assertThat(s.decisions()).isEqualTo(500);
        assertThat(s.lagMeanMs()).isEqualTo(10.0);
        assertThat(s.loadReports()).isEqualTo(150);
        assertThat(s.decisionBatches()).isEqualTo(150);
    }

    @Test
    void aReplicaThatAppliedNoDecisionInTheWindowGivesNoQuantile() {
        Map<String, Double> idle = Map.of(P50, 0.5, P99, 0.9, COUNT, 7.0, SUM, 1.0);
        Map<String, Double> busy = Map.of(P50, 0.002, P99, 0.004, COUNT, 10.0, SUM, 0.02);
        SyncSamples s = SyncSamples.of(List.of(idle, Map.of()), List.of(idle, busy));
        assertThat(s.lagP50Ms()).isEqualTo(2.0);
        assertThat(s.lagP99Ms()).isEqualTo(4.0);
        assertThat(s.lagMeanMs()).isEqualTo(2.0);
    }

    @Test
    void noDecisionAppliedGivesNoLag() {
        SyncSamples s = SyncSamples.of(List.of(Map.of()), List.of(Map.of(LOADS, 4.0)));
        assertThat(s).isEqualTo(new SyncSamples(null, null, null, 0, 4, 0));
    }

    @Test
    void theMedianOfAnEvenCountIsTheMeanOfTheMiddleTwo() {
        assertThat(SyncSamples.median(List.of(4.0, 1.0, 3.0, 2.0))).isEqualTo(2.5);
        assertThat(SyncSamples.median(List.of(5.0, 1.0, 3.0))).isEqualTo(3.0);
    }

    @Test
    void rejectsSamplesOfDifferentFleets() {
        assertThatThrownBy(() -> SyncSamples.of(List.of(Map.of()), List.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("samples of 1 replicas before, 0 after");
    }
}
