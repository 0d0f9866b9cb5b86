package dev.caravan.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Vertx;
import org.apache.camel.component.platform.http.PlatformHttpComponent;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpRouter;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.model.RouteDefinition;
import org.junit.jupiter.api.Test;

import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.components.http.CaravanPlatformHttpEngine;
import dev.caravan.components.http.GatewayHttpServer;
import dev.caravan.processors.metrics.MetricsFeature;

/**
 * What {@code install} puts into a host's registry: its own component, router and Vert.x, and nothing under the names
 * the host's platform-http component and server look up ({@code platform-http-engine}, a registry {@code Vertx}).
 */
class HostRegistryTest {

    private static final GatewayConfig CONFIG = GatewayConfig.defaults().with(CoreFlags.HOST, "127.0.0.1")
            .with(CoreFlags.PORT, "0").with(MetricsFeature.PROMETHEUS_PORT, "-1");

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
            // an endpoint route is an instance of ingress's routeTemplate: its path is a template parameter
            RouteDefinition chat = context.getRouteDefinition("chat-completions");
            assertThat(chat.getInput().getEndpointUri()).isEqualTo("caravan-http:{{path}}?httpMethodRestrict=POST");
            assertThat(chat.getTemplateParameters()).containsEntry("path", "/v1/chat/completions");
        } finally {
            gateway.beans().close();
        }
    }
}
