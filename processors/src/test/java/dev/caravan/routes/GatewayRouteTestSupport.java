package dev.caravan.routes;

import java.util.List;

import org.apache.camel.CamelContext;
import org.apache.camel.builder.AdviceWith;
import org.apache.camel.builder.AdviceWithRouteBuilder;
import org.apache.camel.model.ModelCamelContext;
import org.apache.camel.model.RouteDefinition;
import org.apache.camel.test.junit5.CamelTestSupport;
import org.apache.camel.test.junit5.TestExecutionConfiguration;
import org.apache.camel.util.function.ThrowingConsumer;

import dev.caravan.gateway.CaravanGateway;
import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.health.HealthFeature;

/**
 * Camel's test kit around the gateway's real YAML routes (caravan-routes on the class path): each test gets a context
 * with the gateway installed ({@link CaravanGateway#install}, its HTTP server on an ephemeral loopback port), advised
 * before it starts. Every timer route (health checks, engine probes, load polls, maintenance, ...) is advised to start
 * from {@code direct:<route id>} instead, so nothing calls a fake engine unless the test does; a test adds its own
 * advice in {@link #advise} and then the context is started.
 */
abstract class GatewayRouteTestSupport extends CamelTestSupport {

    protected CaravanGateway gateway;

    /** The gateway's settings for this test class; {@link #baseConfig} is loopback, port 0, no background polls. */
    protected abstract GatewayConfig config();

    /** The test's own advice, applied before the context starts. */
    protected void advise() throws Exception {
    }

    protected static GatewayConfig baseConfig() {
        return GatewayConfig.defaults()
                .with(CoreFlags.HOST, "127.0.0.1")
                .with(CoreFlags.PORT, "0")
                .with(CoreFlags.LOAD_CHECK_INTERVAL, "0")
                .with(HealthFeature.DISABLE_HEALTH_CHECK, "true");
    }

    @Override
    public void configureTest(TestExecutionConfiguration configuration) {
        super.configureTest(configuration);
        configuration.withUseAdviceWith(true);
    }

    @Override
    protected CamelContext createCamelContext() throws Exception {
        CamelContext camel = super.createCamelContext();
        gateway = CaravanGateway.install(camel, config());
        return camel;
    }

    @Override
    protected void doPostSetup() throws Exception {
        List<RouteDefinition> timers = ((ModelCamelContext) context).getRouteDefinitions().stream()
                .filter(r -> r.getInput().getEndpointUri().startsWith("timer:"))
                .toList();
        for (RouteDefinition route : timers) {
            AdviceWith.adviceWith(context, route.getRouteId(), a -> a.replaceFromWith("direct:" + route.getRouteId()));
        }
        advise();
        context.start();
    }

    /** Advises route {@code routeId} with Camel's {@link AdviceWith} (from {@link #advise}, before the context starts). */
    protected final void adviceWith(String routeId, ThrowingConsumer<AdviceWithRouteBuilder, Exception> advice)
            throws Exception {
        AdviceWith.adviceWith(context, routeId, advice);
    }
}
