package dev.caravan.sync;

import java.util.List;

import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.metrics.MetricsFeature;

/** Gateway configurations of replicas syncing on loopback, for this module's tests. */
final class Replicas {

    private Replicas() {
    }

    /** A replica with its sync member on 127.0.0.1:{@code port} (0: any) listing {@code members}. */
    static GatewayConfig config(int port, List<String> members) {
        return GatewayConfig.defaults()
                .with(CoreFlags.PORT, "0")
                .with(MetricsFeature.PROMETHEUS_PORT, "-1") // two replicas in one JVM; /metrics stays on --port
                .with(CoreFlags.HOST, "127.0.0.1")
                .with(CoreFlags.SYNC_MODE, CoreFlags.SYNC_HAZELCAST)
                .with(SyncFeature.SYNC_HOST, "127.0.0.1")
                .with(SyncFeature.SYNC_PORT, Integer.toString(port))
                .with(SyncFeature.SYNC_MEMBERS, String.join(",", members))
                .with(SyncFeature.SYNC_CLUSTER_NAME, "test-" + ProcessHandle.current().pid())
                .with(SyncFeature.SYNC_SECRET, "test-secret");
    }
}
