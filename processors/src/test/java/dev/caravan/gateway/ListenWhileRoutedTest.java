package dev.caravan.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.camel.Route;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.spi.CamelEvent;
import org.apache.camel.support.EventNotifierSupport;
import org.junit.jupiter.api.Test;

import dev.caravan.components.http.CaravanPlatformHttpEngine;
import dev.caravan.components.http.GatewayHttpServer;
import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.metrics.MetricsFeature;

/**
 * The gateway's server listens only while every {@code caravan-http:} route is started: each such route starts, and
 * stops, while nothing listens, so no request can find the router without its route (404 for a path it serves).
 */
class ListenWhileRoutedTest {

    private static final GatewayConfig CONFIG = GatewayConfig.defaults().with(CoreFlags.HOST, "127.0.0.1")
            .with(CoreFlags.PORT, "0").with(MetricsFeature.PROMETHEUS_PORT, "-1");

    /** Whether the server listened as each gateway route started, and as it began to stop, by route id. */
    private static final class ListeningAtRouteEvents extends EventNotifierSupport {
        final Map<String, Boolean> atStart = new ConcurrentHashMap<>();
        final Map<String, Boolean> atStop = new ConcurrentHashMap<>();
        private final GatewayHttpServer server;

        ListeningAtRouteEvents(GatewayHttpServer server) {
            this.server = server;
            setIgnoreExchangeEvents(true);
            setIgnoreStepEvents(true);
        }

        @Override
        public boolean isEnabled(CamelEvent event) {
            return event instanceof CamelEvent.RouteEvent e
                    && e.getRoute().getEndpoint().getEndpointUri().startsWith(CaravanPlatformHttpEngine.COMPONENT_NAME);
        }

        @Override
        public void notify(CamelEvent event) {
            Route route = ((CamelEvent.RouteEvent) event).getRoute();
            if (event.getType() == CamelEvent.Type.RouteStarted) {
                atStart.put(route.getRouteId(), server.listening());
            } else if (event.getType() == CamelEvent.Type.RouteStopping) {
                atStop.put(route.getRouteId(), server.listening());
            }
        }
    }

    @Test
    void everyGatewayRouteStartsBeforeTheServerListensAndStopsAfterItClosed() throws Exception {
        DefaultCamelContext context = new DefaultCamelContext();
        CaravanGateway gateway = CaravanGateway.install(context, CONFIG);
        GatewayHttpServer server = gateway.beans().http();
        ListeningAtRouteEvents events = new ListeningAtRouteEvents(server);
        context.getManagementStrategy().addEventNotifier(events);

        context.start();
        boolean listeningOnceStarted = server.listening();
        context.stop();

        assertThat(listeningOnceStarted).isTrue();
        assertThat(events.atStart).containsKey("chat-completions").doesNotContainValue(true);
        assertThat(events.atStop).containsOnlyKeys(events.atStart.keySet()).doesNotContainValue(true);
        assertThat(server.listening()).isFalse();
    }

    @Test
    void installedIntoAStartedContextItListensOnceItsRoutesHaveStarted() throws Exception {
        DefaultCamelContext context = new DefaultCamelContext();
        context.start();
        try {
            CaravanGateway gateway = CaravanGateway.install(context, CONFIG);

            assertThat(gateway.beans().http().listening()).isTrue();
            assertThat(context.getRouteController().getRouteStatus("chat-completions").isStarted()).isTrue();
        } finally {
            context.stop();
        }
    }
}
