package dev.caravan.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Vertx;
import org.apache.camel.component.platform.http.PlatformHttpComponent;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpRouter;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.Test;

import dev.caravan.components.http.CaravanPlatformHttpEngine;
import dev.caravan.components.http.GatewayHttpServer;
import dev.caravan.processors.config.CaravanFlags;
import dev.caravan.processors.config.GatewayConfig;

/**
 * What {@code install} puts into a host's registry: its own component, router and Vert.x, and nothing under the names
 * the host's platform-http component and server look up ({@code platform-http-engine}, a registry {@code Vertx}).
 */
class HostRegistryTest {

    private static final GatewayConfig CONFIG = GatewayConfig.defaults().with(CaravanFlags.HOST, "127.0.0.1")
            .with(CaravanFlags.PORT, "0").with(CaravanFlags.PROMETHEUS_PORT, "-1");

    @Test
    void installLeavesTheHostsVertxAndPlatformHttpEngineAlone() throws Exception {
        Vertx host = Vertx.vertx();
        DefaultCamelContext context = new DefaultCamelContext();
        context.getRegistry().bind("vertx", host);
        CaravanGateway gateway = CaravanGateway.install(context, CONFIG);
        try {
            assertThat(context.getRegistry().lookupByName("vertx")).isSameAs(host);
            assertThat(context.getRegistry().findByType(Vertx.class)).containsExactly(host);
            assertThat(context.getRegistry().lookupByName("platform-http-engine")).isNull();
            assertThat(gateway.beans().vertx()).isNotSameAs(host);
        } finally {
            gateway.beans().close();
            host.close().toCompletionStage().toCompletableFuture().join();
        }
    }

    @Test
    void theGatewaysRoutesGetTheirOwnComponentAndRouter() throws Exception {
        DefaultCamelContext context = new DefaultCamelContext();
        CaravanGateway gateway = CaravanGateway.install(context, CONFIG);
        try {
            PlatformHttpComponent component = context.getRegistry()
                    .lookupByNameAndType(CaravanPlatformHttpEngine.COMPONENT_NAME, PlatformHttpComponent.class);
            assertThat(component.getEngine()).isInstanceOf(CaravanPlatformHttpEngine.class);
            assertThat(context.getRegistry().lookupByNameAndType(GatewayHttpServer.ROUTER_NAME,
                    VertxPlatformHttpRouter.class)).isSameAs(gateway.beans().http().router());
            assertThat(context.getRouteDefinitions()).allSatisfy(r -> assertThat(r.getInput().getEndpointUri())
                    .doesNotStartWith("platform-http:"));
            assertThat(context.getRouteDefinition("chat-completions").getInput().getEndpointUri())
                    .isEqualTo("caravan-http:/v1/chat/completions?httpMethodRestrict=POST");
        } finally {
            gateway.beans().close();
        }
    }
}
