package dev.caravan.gateway;

import org.apache.camel.spi.CamelEvent;
import org.apache.camel.spi.EventNotifier;
import org.apache.camel.support.EventNotifierSupport;
import org.apache.camel.support.service.ServiceHelper;

import dev.caravan.components.http.GatewayHttpServer;

/**
 * Keeps the gateway's HTTP server listening only while every route is on its router, so a request to a path the
 * gateway serves is refused (nothing listens) or routed, never answered 404 by a router whose routes are not there yet,
 * or not any more. A {@code caravan-http:} consumer puts its path on the router when it starts and takes it off when it
 * stops; Camel starts a context's services before the route consumers and stops them after, so the server is not one.
 *
 * <ul>
 *   <li>Start: the server binds when Camel reports the context's routes started ({@code RoutesStarted}: every consumer
 *   has started, and the context does not yet count as started, so {@code isStarted()} still implies listening), or at
 *   once through {@link #listen()} when the gateway is installed into a started context. A bind failure cannot escape
 *   an event notifier: it is kept, and {@link #listen()} throws it.</li>
 *   <li>Stop: when the context starts stopping, the drain runs, then the server closes, before Camel stops any route;
 *   requests after the drain are refused.</li>
 * </ul>
 */
final class ListenWhileRouted extends EventNotifierSupport {

    private final GatewayHttpServer http;
    private final EventNotifier drain;
    private volatile RuntimeException bindFailure;

    /**
     * @param http  the gateway's server
     * @param drain runs the drain when told the context is stopping
     */
    ListenWhileRouted(GatewayHttpServer http, EventNotifier drain) {
        this.http = http;
        this.drain = drain;
        setIgnoreExchangeEvents(true);
        setIgnoreRouteEvents(true);
        setIgnoreServiceEvents(true);
        setIgnoreStepEvents(true);
    }

    @Override
    public boolean isEnabled(CamelEvent event) {
        return event.getType() == CamelEvent.Type.RoutesStarted || event.getType() == CamelEvent.Type.CamelContextStopping;
    }

    @Override
    public void notify(CamelEvent event) throws Exception {
        if (event.getType() == CamelEvent.Type.RoutesStarted) {
            try {
                ServiceHelper.startService(http);
            } catch (RuntimeException e) {
                bindFailure = e;
            }
        } else {
            drain.notify(event);
            ServiceHelper.stopService(http);
        }
    }

    /**
     * Binds the server unless it listens already.
     *
     * @throws RuntimeException the failure of the bind when the routes started, or of this one (a
     *                          {@link dev.caravan.components.http.ListenException} when the address cannot be bound)
     */
    void listen() {
        RuntimeException failure = bindFailure;
        if (failure != null) {
            throw failure;
        }
        ServiceHelper.startService(http);
    }
}
