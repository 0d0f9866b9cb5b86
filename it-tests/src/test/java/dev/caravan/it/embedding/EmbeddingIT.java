package dev.caravan.it.embedding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.http.HttpResponse;

import io.vertx.core.impl.VertxInternal;
import org.apache.camel.CamelContext;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpServer;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpServerConfiguration;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.caravan.components.http.ListenException;
import dev.caravan.gateway.CaravanGateway;
import dev.caravan.processors.config.CoreFlags;
import dev.caravan.it.GatewayClient;
import dev.caravan.it.SimFleetExtension;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.metrics.MetricsFeature;

/**
 * The gateway added to an application's own CamelContext: its endpoints on its own server, the application's
 * platform-http routes on the application's server, and a start that fails loudly when the gateway cannot listen.
 * (The example application, examples/embedded-app, covers streaming, blocking host routes and stopping.)
 */
class EmbeddingIT {

    @RegisterExtension
    static final SimFleetExtension SIMS = new SimFleetExtension(1, b -> b.defaultMaxTokens(2));

    private static GatewayConfig config(int port) {
        return GatewayConfig.defaults().with(CoreFlags.HOST, "127.0.0.1").with(CoreFlags.PORT, Integer.toString(port)).with(MetricsFeature.PROMETHEUS_PORT, "-1")
                .with(CoreFlags.WORKER_URLS, SIMS.urls().get(0));
    }

    @Test
    void theGatewayAndTheApplicationServeTheirRoutesOnTheirOwnServers() throws Exception {
        CamelContext context = new DefaultCamelContext();
        VertxPlatformHttpServerConfiguration appServer = new VertxPlatformHttpServerConfiguration();
        appServer.setBindHost("127.0.0.1");
        appServer.setBindPort(0);
        VertxPlatformHttpServer app = new VertxPlatformHttpServer(appServer);
        context.addService(app);
        context.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("platform-http:/app/status").setBody(constant("app is fine"));
                from("direct:greet").setBody(simple("hello ${body}"));
            }
        });

        CaravanGateway gateway = CaravanGateway.install(context, config(0));
        context.start();
        try {
            GatewayClient gw = new GatewayClient("http://127.0.0.1:" + gateway.port());
            GatewayClient host = new GatewayClient("http://127.0.0.1:" + app.getServer().actualPort());
            assertThat(app.getServer().actualPort()).isNotEqualTo(gateway.port());

            assertThat(gw.postJson("/v1/completions", "{\"model\":\"" + SIMS.model() + "\",\"prompt\":\"hi\"}")
                    .statusCode()).isEqualTo(200);
            assertThat(host.get("/app/status").body()).isEqualTo("app is fine");
            assertThat(context.createProducerTemplate().requestBody("direct:greet", "camel", String.class))
                    .isEqualTo("hello camel");

            HttpResponse<String> notTheGateways = gw.get("/app/status");
            assertThat(notTheGateways.statusCode()).isEqualTo(404);
            assertThat(GatewayClient.parse(notTheGateways.body()).path("error").path("code").asText())
                    .isEqualTo("not_found");
            assertThat(host.get("/health").statusCode()).as("the gateway's endpoints are not on the host's server")
                    .isEqualTo(404);
            assertThat(gw.get("/metrics").body()).contains("caravan_requests_total{endpoint=\"/v1/completions\"")
                    .doesNotContain("/app/status");
        } finally {
            context.stop();
        }
    }

    @Test
    void startThrowsNamingTheAddressWhenThePortIsTakenAndReleasesTheGateway() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"))) {
            CamelContext context = new DefaultCamelContext();
            CaravanGateway gateway = CaravanGateway.install(context, config(taken.getLocalPort()));

            assertThatThrownBy(context::start).satisfies(e -> assertThat(ListenException.find(e))
                    .hasMessage("Caravan gateway cannot listen on 127.0.0.1:" + taken.getLocalPort()
                            + ": Address already in use"));
            assertThat(context.isStarted()).isFalse();
            assertThat(gateway.beans().http().listening()).isFalse();
            assertThat(((VertxInternal) gateway.beans().vertx()).closeFuture().isClosed())
                    .as("the gateway's Vert.x instance is closed: no thread keeps the JVM alive").isTrue();
            context.stop();
        }
    }
}
