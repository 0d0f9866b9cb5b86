package dev.caravan.processors.tuning;

import org.apache.camel.CamelContext;
import org.apache.camel.component.micrometer.eventnotifier.MicrometerRouteEventNotifier;
import org.apache.camel.spi.EventNotifier;

/**
 * Camel's exchange events (created, sending, sent, completed, failure handled: several per route a request passes) are
 * only built and offered to the context's event notifiers when one of them wants them. Camel decides that at start
 * from any notifier at all, and camel-micrometer's route event notifier ({@code camel.metrics.enableRouteEventNotifier},
 * the {@code camel_routes_*} gauges) does not say that it ignores exchange events, though it acts on route events only;
 * so every request paid for the event checks with nobody listening (docs/design/request-path.md, "Per-request cost").
 * {@link #onlyWhenListened} says so for that notifier and lets Camel skip exchange events unless a notifier takes
 * them: camel-micrometer's exchange event notifier ({@code camel.metrics.enableExchangeEventNotifier}), or one an
 * application adds (Camel turns them back on when a notifier that wants them is added later).
 */
final class ExchangeEvents {

    private ExchangeEvents() {
    }

    /**
     * Call once the context has started (its notifiers are in place). Returns whether exchange events stay on.
     */
    static boolean onlyWhenListened(CamelContext context) {
        boolean listened = false;
        for (EventNotifier notifier : context.getManagementStrategy().getEventNotifiers()) {
            if (notifier instanceof MicrometerRouteEventNotifier) {
                notifier.setIgnoreExchangeEvents(true);
            }
            listened |= !notifier.isIgnoreExchangeEvents();
        }
        context.getCamelContextExtension().setEventNotificationApplicable(listened);
        return listened;
    }
}
