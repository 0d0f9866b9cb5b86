package dev.caravan.processors.tuning;

import java.util.Map;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.component.platform.http.vertx.HttpMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.caravan.components.http.RequestMessageFactory;
import dev.caravan.processors.time.DelayScheduler;

/**
 * The one switch of the gateway's Camel tuning ({@code --camel-tuning}, on by default): every place where the gateway
 * runs Camel otherwise than Camel's defaults would asks this object what to use, and with the tuning off gets Camel's
 * (or Vert.x's) stock behaviour. What each item does, what it gains and what upstream change would make it unnecessary:
 * docs/design/camel-tuning.md.
 *
 * <table>
 *   <caption>On and off</caption>
 *   <tr><th>item</th><th>on</th><th>off</th></tr>
 *   <tr><td>{@link #install}</td><td>runs of consecutive steps as one node ({@link StepFusion})</td>
 *       <td>one Camel node per YAML step</td></tr>
 *   <tr><td>{@link #messages}</td><td>request headers in a hashed map ({@link HeaderMap}); the property map
 *       sized for a request ({@link PropertyCapacity})</td>
 *       <td>platform-http's message, Camel's {@code CaseInsensitiveMap}; Camel's map size</td></tr>
 *   <tr><td>{@link #timers}</td><td>tasks on the event loop's own queue ({@link EventLoopDelayScheduler})</td>
 *       <td>Vert.x timers</td></tr>
 *   <tr><td>{@link #routeEnds}</td><td>an answered request's route end waits for the loop's next request
 *       ({@link RouteEnds})</td><td>Camel resumes the route as soon as the answer ended</td></tr>
 *   <tr><td>{@link #timeRoutes}</td><td>only the {@code inference} route timed, by a {@link RouteTimer}</td>
 *       <td>camel-micrometer's policy on every route</td></tr>
 *   <tr><td>{@link #skipUnheardExchangeEvents}</td><td>exchange events only when a notifier listens
 *       ({@link ExchangeEvents})</td><td>Camel's choice</td></tr>
 * </table>
 *
 * Immutable; the two instances are shared.
 */
public final class CamelTuning {

    private static final Logger LOG = LoggerFactory.getLogger(CamelTuning.class);

    private static final CamelTuning ON = new CamelTuning(true);
    private static final CamelTuning OFF = new CamelTuning(false);

    private final boolean on;

    private CamelTuning(boolean on) {
        this.on = on;
    }

    /** @param on the {@code --camel-tuning} setting */
    public static CamelTuning of(boolean on) {
        return on ? ON : OFF;
    }

    public boolean on() {
        return on;
    }

    /**
     * Tunes the routes of {@code context}: with the tuning on, fuses runs of the gateway's steps ({@link StepFusion})
     * in the routes not built yet and in every route added later. Logs which mode runs.
     *
     * @param beans the gateway's beans by name: only steps naming one of them are fused
     */
    public void install(CamelContext context, Map<String, ?> beans) {
        if (on) {
            LOG.info("Camel tuning on: fused steps, hashed request headers, sized property maps, event-loop timers, "
                    + "deferred route ends (--camel-tuning=false runs stock Camel)");
            StepFusion.install(context, beans);
        } else {
            LOG.info("Camel tuning off: stock Camel nodes, messages, timers and route completion");
        }
    }

    /**
     * The request message the HTTP consumer creates: with the tuning on, one whose headers are a {@link HeaderMap}, on
     * an exchange whose property map is sized for a request ({@link PropertyCapacity}); off, platform-http's own.
     */
    public RequestMessageFactory messages() {
        return on ? CamelTuning::tunedRequest : RequestMessageFactory.CAMEL;
    }

    private static HttpMessage tunedRequest(Exchange exchange, HttpServerRequest request, HttpServerResponse response) {
        PropertyCapacity.size(exchange);
        return new RequestMessage(exchange, request, response);
    }

    /** The request path's timers on {@code vertx}: the event loops' own queues when on, Vert.x timers when off. */
    public DelayScheduler timers(Vertx vertx) {
        return on ? new EventLoopDelayScheduler(vertx) : DelayScheduler.vertx(vertx);
    }

    /** Where answered requests' route ends wait ({@link RouteEnds}), or null when off: Camel resumes at once. */
    public RouteEnds routeEnds(DelayScheduler timers) {
        return on ? new RouteEnds(timers) : null;
    }

    /**
     * With the tuning on, puts {@link RouteTimers} in place of camel-micrometer's route policy factory, if the context
     * has one. Call before the routes start. Returns whether it did.
     */
    public boolean timeRoutes(CamelContext context) {
        return on && RouteTimers.excludeInnerRoutes(context);
    }

    /**
     * With the tuning on, lets Camel skip exchange events that no notifier listens to ({@link ExchangeEvents}). Call
     * once the context has started.
     */
    public void skipUnheardExchangeEvents(CamelContext context) {
        if (on) {
            ExchangeEvents.onlyWhenListened(context);
        }
    }
}
