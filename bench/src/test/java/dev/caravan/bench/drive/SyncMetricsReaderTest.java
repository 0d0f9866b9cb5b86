package dev.caravan.bench.drive;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SyncMetricsReaderTest {

    @Test
    void keepsSyncSamplesWithTheirLabelsAndLeavesBucketsAndOtherMetricsOut() {
        String exposition = """
                # HELP caravan_sync_lag_seconds time from a decision on one replica to its arrival on another
                # TYPE caravan_sync_lag_seconds summary
                caravan_sync_lag_seconds{quantile="0.99",} 0.0042
                caravan_sync_lag_seconds_count 120.0
                caravan_sync_lag_seconds_bucket{le="0.005",} 118.0
                caravan_sync_messages_total{direction="sent",} 360.0
                caravan_requests_total{status="200",} 120.0
                caravan_sync_members 3.0
                """;
        assertThat(SyncMetricsReader.parse(exposition)).containsExactly(
                java.util.Map.entry("caravan_sync_lag_seconds{quantile=\"0.99\",}", 0.0042),
                java.util.Map.entry("caravan_sync_lag_seconds_count", 120.0),
                java.util.Map.entry("caravan_sync_messages_total{direction=\"sent\",}", 360.0),
                java.util.Map.entry("caravan_sync_members", 3.0));
    }
}
