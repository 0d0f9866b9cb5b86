package dev.caravan.processors.admission;

import org.apache.camel.CamelContext;
import org.apache.camel.spi.CamelEvent;
import org.apache.camel.support.EventNotifierSupport;

/**
 * Runs the {@link GracefulShutdown} drain when the Camel context starts stopping — the path camel-main's SIGTERM/SIGINT
 * hook takes, and an embedding application's {@code context.stop()} — before Camel stops any route or the HTTP server.
 * When the grace period ran out, Camel's own wait for in-flight exchanges is cut to one second, so the total stays
 * close to the grace period.
 */
public final class DrainOnStopNotifier extends EventNotifierSupport {

    private final GracefulShutdown shutdown;
    private final CamelContext context;

    public DrainOnStopNotifier(GracefulShutdown shutdown, CamelContext context) {
        this.shutdown = shutdown;
        this.context = context;
        setIgnoreExchangeEvents(true);
        setIgnoreRouteEvents(true);
        setIgnoreServiceEvents(true);
        setIgnoreStepEvents(true);
    }

    @Override
    public boolean isEnabled(CamelEvent event) {
        return event.getType() == CamelEvent.Type.CamelContextStopping;
    }

    @Override
    public void notify(CamelEvent event) {
        if (!shutdown.drain()) {
            context.getShutdownStrategy().setTimeout(1);
        }
    }
}
