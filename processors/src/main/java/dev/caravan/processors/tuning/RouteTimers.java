package dev.caravan.processors.tuning;

import java.util.List;

import org.apache.camel.CamelContext;
import org.apache.camel.component.micrometer.routepolicy.MicrometerRoutePolicyFactory;
import org.apache.camel.spi.RoutePolicyFactory;
import org.apache.camel.support.PatternHelper;

/**
 * Which routes camel-main's Micrometer route policy times ({@code camel_exchanges_total}, {@code camel_route_...}): on
 * the request path only {@code inference}, which every inference request runs once. Left out: the endpoint routes
 * that only name the request's kind and hand over to {@code inference} ({@code caravan_requests_total{endpoint}}
 * counts and times requests per endpoint), and the P/D attempt bodies ({@code attempt-pd-*}), which the attempt loop
 * inside {@code inference} runs once per attempt ({@code caravan_retries_total} counts the extra attempts; the regular
 * forward body is part of {@code inference} itself). Each timed route costs every request a timer sample, a
 * {@code String.format}ted exchange property and counter updates: with four timed routes per request that was about a
 * tenth of the gateway's CPU per request (docs/design/request-path.md, "Per-request cost"). {@code inference} itself is
 * timed by a {@link RouteTimer} instead of camel-micrometer's policy: the same meters without the formatted property.
 * The untimed routes get no route policy at all: camel-micrometer's factory gives every route one, which on an excluded
 * route records nothing but still runs (a run-allowed check and a map look-up at each end) on every request.
 */
final class RouteTimers {

    /** Camel's pattern syntax (route ids, {@code *} wildcards), comma-separated. */
    static final String UNTIMED_ROUTES = "attempt-*,chat-completions,completions,generate,embeddings,rerank,"
            + "rerank-legacy,classify,tokenize,detokenize,responses";

    /** The route every inference request runs once, timed by a {@link RouteTimer}, not camel-micrometer's policy. */
    static final String INFERENCE_ROUTE = "inference";

    private RouteTimers() {
    }

    /**
     * Puts a factory in place of the context's Micrometer route policy factory, if it has one: {@link #UNTIMED_ROUTES}
     * get no policy (unless context-level meters are on), {@link #INFERENCE_ROUTE} a {@link RouteTimer} with
     * camel-micrometer's settings, every other route camel-micrometer's own policy (its exclude pattern, set to the
     * same routes, stays for anything that reads it). Call before the routes start (policies are created then).
     * Returns whether a factory was found.
     */
    static boolean excludeInnerRoutes(CamelContext context) {
        List<RoutePolicyFactory> factories = context.getRoutePolicyFactories();
        for (int i = 0; i < factories.size(); i++) {
            if (factories.get(i) instanceof MicrometerRoutePolicyFactory micrometer) {
                micrometer.getPolicyConfiguration().setExcludePattern(UNTIMED_ROUTES + "," + INFERENCE_ROUTE);
                factories.set(i, timersFor(micrometer));
                return true;
            }
        }
        return false;
    }

    private static RoutePolicyFactory timersFor(MicrometerRoutePolicyFactory micrometer) {
        String[] untimed = UNTIMED_ROUTES.split(",");
        return (camelContext, routeId, route) -> {
            if (INFERENCE_ROUTE.equals(routeId)) {
                return new RouteTimer(micrometer);
            }
            // with context-level meters on, every route's policy feeds them: only then do the untimed routes keep one
            boolean none = !micrometer.getPolicyConfiguration().isContextEnabled()
                    && PatternHelper.matchPatterns(routeId, untimed);
            return none ? null : micrometer.createRoutePolicy(camelContext, routeId, route);
        };
    }
}
