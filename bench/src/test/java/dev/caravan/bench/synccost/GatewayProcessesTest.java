package dev.caravan.bench.synccost;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class GatewayProcessesTest {

    @Test
    void readsTheBoundPortFromTheStartUpLine() {
        String log = "18:00:33.739 INFO  [main] SyncNode - Sync: member f2a0 at [127.0.0.1]:24511 joined\n"
                + "18:00:38.534 INFO  [main] GatewayMain - Caravan gateway started on 127.0.0.1:44625 (policy "
                + "cache_aware, 4 worker(s))\n";
        assertThat(GatewayProcesses.startedPort(log)).isEqualTo(44625);
    }

    @Test
    void noStartUpLineYetIsNoPort() {
        assertThat(GatewayProcesses.startedPort("18:00:33.739 INFO  [main] Configuration from defaults\n"))
                .isEqualTo(-1);
    }
}
