package dev.caravan.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

import dev.caravan.processors.config.CaravanFlags;
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
    void discoveryWithoutItsModuleNamesTheArtifact() {
        GatewayConfig config = GatewayConfig.defaults().with(CoreFlags.SERVICE_DISCOVERY, "true");
        assertThatThrownBy(() -> Extensions.load().enabled(config)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--service-discovery needs Kubernetes service discovery: add "
                        + "dev.caravan:caravan-kubernetes to the class path");
    }

    @Test
    void theTableHasTheSwitchesButNoRowOfAnAbsentModule() {
        assertThat(CaravanFlags.byFlag("--service-discovery")).contains(CoreFlags.SERVICE_DISCOVERY);
        assertThat(CaravanFlags.byFlag("--sync")).contains(CoreFlags.SYNC_MODE);
        assertThat(CaravanFlags.byFlag("--selector")).isEmpty();
        assertThat(CaravanFlags.byFlag("--sync-members")).isEmpty();
    }

    @Test
    void routesOfModulesThatAreOffAreLeftOut() {
        assertThat(Extensions.load().excludedRoutes(GatewayConfig.defaults()))
                .isEqualTo("**/discovery.camel.yaml,**/sync.camel.yaml");
    }

    @Test
    void syncNoneNeedsNoModule() {
        assertThat(Extensions.load().enabled(GatewayConfig.defaults())).isEmpty();
    }
}
