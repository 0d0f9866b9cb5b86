package dev.caravan.sync;

import java.util.List;

import dev.caravan.processors.config.CaravanFlags;
import dev.caravan.processors.config.GatewayConfig;

/** Gateway configurations of replicas syncing on loopback, for this module's tests. */
final class Replicas {

    private Replicas() {
    }

    /** A replica with its sync member on 127.0.0.1:{@code port} (0: any) listing {@code members}. */
    static GatewayConfig config(int port, List<String> members) {
        return GatewayConfig.defaults()
                .with(CaravanFlags.PORT, "0")
                .with(CaravanFlags.PROMETHEUS_PORT, "-1") // two replicas in one JVM; /metrics stays on --port
                .with(CaravanFlags.HOST, "127.0.0.1")
                .with(CaravanFlags.SYNC_MODE, CaravanFlags.SYNC_HAZELCAST)
                .with(CaravanFlags.SYNC_HOST, "127.0.0.1")
                .with(CaravanFlags.SYNC_PORT, Integer.toString(port))
                .with(CaravanFlags.SYNC_MEMBERS, String.join(",", members))
                .with(CaravanFlags.SYNC_CLUSTER_NAME, "test-" + ProcessHandle.current().pid())
                .with(CaravanFlags.SYNC_SECRET, "test-secret");
    }
}
