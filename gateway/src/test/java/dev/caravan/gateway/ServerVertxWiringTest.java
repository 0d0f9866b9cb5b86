package dev.caravan.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Vertx;
import org.junit.jupiter.api.Test;

import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.http.GatewayServerVertx;

/**
 * The platform-http server takes the registry's Vert.x: the gateway binds its JSON-answering wrapper there only for an
 * instance it owns, and leaves a host application's instance as it is.
 */
class ServerVertxWiringTest {

    @Test
    void theRegistryGetsTheWrapperOfTheInstanceTheGatewayOwns() {
        try (GatewayBeans beans = new GatewayBeans(GatewayConfig.defaults(), null, null)) {
            assertThat(beans.beans().get(BeanNames.VERTX)).isSameAs(beans.serverVertx())
                    .isInstanceOf(GatewayServerVertx.class);
            assertThat(beans.vertx()).isNotInstanceOf(GatewayServerVertx.class);
        }
    }

    @Test
    void aHostsInstanceIsBoundUnwrappedAndWrappedOnlyForTheGatewaysOwnServer() {
        Vertx host = Vertx.vertx();
        try (GatewayBeans beans = new GatewayBeans(GatewayConfig.defaults(), host, null)) {
            assertThat(beans.beans().get(BeanNames.VERTX)).isSameAs(host);
            assertThat(beans.vertx()).isSameAs(host);
            assertThat(beans.serverVertx()).isInstanceOf(GatewayServerVertx.class);
            assertThat(beans.serverVertx().getOrCreateContext().owner()).isSameAs(host);
        } finally {
            host.close().toCompletionStage().toCompletableFuture().join();
        }
    }
}
