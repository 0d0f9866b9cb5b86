package dev.caravan.it;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.camel.CamelContext;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.caravan.gateway.CaravanGateway;
import dev.caravan.processors.config.CaravanFlags;
import dev.caravan.processors.config.GatewayConfig;

/** The gateway's routes and beans added to an application's own CamelContext, next to its own routes. */
class EmbeddingIT {

    @RegisterExtension
    static final SimFleetExtension SIMS = new SimFleetExtension(1, b -> b.defaultMaxTokens(2));

    @Test
    void installsIntoAnExistingCamelContextBesideItsOwnRoutes() throws Exception {
        CamelContext context = new DefaultCamelContext();
        context.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("platform-http:/app/status").setBody(constant("app is fine"));
                from("direct:greet").setBody(simple("hello ${body}"));
            }
        });

        CaravanGateway gateway = CaravanGateway.install(context, GatewayConfig.defaults()
                .with(CaravanFlags.HOST, "127.0.0.1").with(CaravanFlags.PORT, "0")
                .with(CaravanFlags.WORKER_URLS, SIMS.urls().get(0)));
        context.start();
        try {
            GatewayClient client = new GatewayClient("http://127.0.0.1:" + gateway.port());
            assertThat(client.postJson("/v1/completions", "{\"model\":\"" + SIMS.model() + "\",\"prompt\":\"hi\"}")
                    .statusCode()).isEqualTo(200);
            assertThat(client.get("/app/status").body()).isEqualTo("app is fine");
            assertThat(context.createProducerTemplate().requestBody("direct:greet", "camel", String.class))
                    .isEqualTo("hello camel");
            assertThat(gateway.workers().all()).hasSize(1);
        } finally {
            context.stop();
        }
    }
}
