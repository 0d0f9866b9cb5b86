package dev.caravan.processors.tuning;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.camel.component.micrometer.eventnotifier.MicrometerRouteEventNotifier;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.spi.CamelEvent;
import org.apache.camel.support.EventNotifierSupport;
import org.junit.jupiter.api.Test;

class ExchangeEventsTest {

    private static final class ExchangeListener extends EventNotifierSupport {
        @Override
        public void notify(CamelEvent event) {
        }
    }

    @Test
    void withOnlyTheRouteEventNotifierCamelBuildsNoExchangeEvents() throws Exception {
        try (DefaultCamelContext context = new DefaultCamelContext()) {
            MicrometerRouteEventNotifier routes = new MicrometerRouteEventNotifier();
            context.getManagementStrategy().addEventNotifier(routes);
            context.start();
            assertThat(context.getCamelContextExtension().isEventNotificationApplicable()).isTrue();

            assertThat(ExchangeEvents.onlyWhenListened(context)).isFalse();
            assertThat(context.getCamelContextExtension().isEventNotificationApplicable()).isFalse();
            assertThat(routes.isIgnoreExchangeEvents()).isTrue();
            assertThat(routes.isIgnoreRouteEvents()).as("route events still reach it").isFalse();
        }
    }

    @Test
    void aNotifierThatTakesExchangeEventsKeepsThemOnOrTurnsThemBackOn() throws Exception {
        try (DefaultCamelContext context = new DefaultCamelContext()) {
            context.getManagementStrategy().addEventNotifier(new MicrometerRouteEventNotifier());
            context.getManagementStrategy().addEventNotifier(new ExchangeListener());
            context.start();
            assertThat(ExchangeEvents.onlyWhenListened(context)).isTrue();
            assertThat(context.getCamelContextExtension().isEventNotificationApplicable()).isTrue();
        }
        try (DefaultCamelContext context = new DefaultCamelContext()) {
            context.getManagementStrategy().addEventNotifier(new MicrometerRouteEventNotifier());
            context.start();
            assertThat(ExchangeEvents.onlyWhenListened(context)).isFalse();

            context.getManagementStrategy().addEventNotifier(new ExchangeListener());
            assertThat(context.getCamelContextExtension().isEventNotificationApplicable()).isTrue();
        }
    }
}
