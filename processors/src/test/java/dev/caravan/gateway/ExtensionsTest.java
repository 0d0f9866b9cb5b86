package dev.caravan.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.config.GatewayConfig;

/** This module's class path holds no optional module: a configuration that needs one fails with its coordinates. */
class ExtensionsTest {

    @Test
    void replicaSyncWithoutItsModuleNamesTheArtifact() {
        GatewayConfig config = GatewayConfig.defaults().with(CoreFlags.SYNC_MODE, CoreFlags.SYNC_HAZELCAST);
        assertThatThrownBy(() -> Extensions.load().enabled(config)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--sync needs Replica sync: add dev.caravan:caravan-sync to the class path");
    }

    @Test
    void syncNoneNeedsNoModule() {
        assertThat(Extensions.load().enabled(GatewayConfig.defaults())).isEmpty();
    }
}
