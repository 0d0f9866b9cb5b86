package dev.caravan.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.config.GatewayConfig;

class SyncConfigTest {

    @Test
    void hazelcastNeedsMembersOrKubernetes() {
        assertThatThrownBy(() -> SyncConfig.from(GatewayConfig.defaults().with(CoreFlags.SYNC_MODE, "hazelcast")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--sync hazelcast needs --sync-members host:port,... or --sync-kubernetes (multicast is "
                        + "never used)");
        assertThat(SyncConfig.from(GatewayConfig.defaults().with(CoreFlags.SYNC_KUBERNETES, "true")).kubernetes())
                .isTrue();
    }

    @Test
    void rejectsAMemberThatIsAUrl() {
        assertThatThrownBy(() -> new SyncConfig(List.of("http://a:5701"), 5701, null, null, false, null, "svc", "c",
                null)).hasMessage("--sync-members takes host:port entries, was 'http://a:5701'");
    }

    @Test
    void hashesAreKeyedByTheSecretElseByTheClusterName() {
        SyncConfig withSecret = new SyncConfig(List.of("a:1"), 0, null, null, false, null, "svc", "fleet", "s3cret");
        SyncConfig without = new SyncConfig(List.of("a:1"), 0, " ", null, false, null, "svc", "fleet", "");
        assertThat(withSecret.hashKey()).isEqualTo("s3cret".getBytes(StandardCharsets.UTF_8));
        assertThat(withSecret.keyedByClusterName()).isFalse();
        assertThat(without.hashKey()).isEqualTo("caravan-sync:fleet".getBytes(StandardCharsets.UTF_8));
        assertThat(without.keyedByClusterName()).isTrue();
        assertThat(without.host()).isNull();
    }
}
