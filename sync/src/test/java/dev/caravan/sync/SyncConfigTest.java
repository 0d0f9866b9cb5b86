package dev.caravan.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.caravan.processors.config.CaravanFlags;
import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.config.GatewayConfig;

class SyncConfigTest {

    @Test
    void hazelcastNeedsMembersOrKubernetes() {
        assertThatThrownBy(() -> SyncConfig.from(GatewayConfig.defaults().with(CoreFlags.SYNC_MODE, "hazelcast")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--sync hazelcast needs --sync-members host:port,... or --sync-kubernetes (multicast is "
                        + "never used)");
        assertThat(SyncConfig.from(GatewayConfig.defaults().with(SyncFeature.SYNC_KUBERNETES, "true")
                .with(SyncFeature.SYNC_SECRET, "s3cret")).kubernetes()).isTrue();
    }

    @Test
    void rejectsAMemberThatIsAUrl() {
        assertThatThrownBy(() -> new SyncConfig(List.of("http://a:5701"), 5701, null, null, false, null, "svc", "c",
                "s3cret", false)).hasMessage("--sync-members takes host:port entries, was 'http://a:5701'");
    }

    @Test
    void hashesAreKeyedByTheSecretElseByTheClusterName() {
        SyncConfig withSecret = new SyncConfig(List.of("a:1"), 0, null, null, false, null, "svc", "fleet", "s3cret",
                false);
        SyncConfig without = new SyncConfig(List.of("a:1"), 0, " ", null, false, null, "svc", "fleet", "", true);
        assertThat(withSecret.hashKey()).isEqualTo("s3cret".getBytes(StandardCharsets.UTF_8));
        assertThat(withSecret.keyedByClusterName()).isFalse();
        assertThat(without.hashKey()).isEqualTo("caravan-sync:fleet".getBytes(StandardCharsets.UTF_8));
        assertThat(without.keyedByClusterName()).isTrue();
        assertThat(without.host()).isNull();
    }

    private static GatewayConfig members(String... flagValues) {
        GatewayConfig c = GatewayConfig.defaults().with(CoreFlags.SYNC_MODE, "hazelcast")
                .with(SyncFeature.SYNC_MEMBERS, "10.0.0.5:5701,10.0.0.6:5701");
        for (int i = 0; i + 1 < flagValues.length; i += 2) {
            c = c.with(CaravanFlags.byFlag(flagValues[i]).orElseThrow(), flagValues[i + 1]);
        }
        return c;
    }

    @Test
    void refusesToBindANonLoopbackAddressWithoutASecret() {
        assertThatThrownBy(() -> SyncConfig.from(members("--sync-host", "0.0.0.0")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--sync hazelcast binds --sync-host 0.0.0.0 without --sync-secret, so anyone who reaches "
                        + "the sync port can confirm a guessed prompt: set --sync-secret on every replica, a loopback "
                        + "--sync-host, or --sync-allow-no-secret");
        assertThatThrownBy(() -> SyncConfig.from(members("--sync-host", "10.0.0.5")))
                .hasMessageStartingWith("--sync hazelcast binds --sync-host 10.0.0.5 without --sync-secret,");
        assertThatThrownBy(() -> SyncConfig.from(members()))
                .hasMessage("--sync hazelcast binds every interface (--sync-host unset) without --sync-secret, so "
                        + "anyone who reaches the sync port can confirm a guessed prompt: set --sync-secret on every "
                        + "replica, a loopback --sync-host, or --sync-allow-no-secret");
        assertThatThrownBy(() -> SyncConfig.from(GatewayConfig.defaults().with(SyncFeature.SYNC_KUBERNETES, "true")))
                .hasMessageStartingWith("--sync hazelcast binds every interface (--sync-host unset) without");
    }

    @Test
    void startsWithoutASecretOnALoopbackAddressOrWhenTheOperatorAllowsIt() {
        for (String loopback : List.of("127.0.0.1", "127.0.0.2", "::1", "localhost")) {
            assertThat(SyncConfig.from(members("--sync-host", loopback)).keyedByClusterName()).as(loopback).isTrue();
        }
        SyncConfig allowed = SyncConfig.from(members("--sync-host", "0.0.0.0", "--sync-allow-no-secret", "true"));
        assertThat(allowed.keyedByClusterName()).isTrue();
        assertThat(allowed.allowNoSecret()).isTrue();
        assertThat(SyncConfig.from(members("--sync-host", "0.0.0.0", "--sync-secret", "s3cret")).keyedByClusterName())
                .isFalse();
    }
}
