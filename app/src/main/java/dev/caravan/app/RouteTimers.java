package dev.caravan.app;

import org.apache.camel.CamelContext;
import org.apache.camel.component.micrometer.routepolicy.MicrometerRoutePolicyFactory;
import org.apache.camel.spi.RoutePolicyFactory;

/**
 * Which routes camel-main's Micrometer route policy times ({@code camel_exchanges_total}, {@code camel_route_...}): on
 * the request path only {@code inference}, which every inference request runs once. Left out: the endpoint routes
 * that only name the request's kind and hand over to {@code inference} ({@code caravan_requests_total{endpoint}}
 * counts and times requests per endpoint), and the attempt loop's inner routes ({@code attempts}, the attempt bodies
 * {@code attempt-forward}, {@code attempt-pd-*}), which run inside {@code inference} once per attempt
 * ({@code caravan_retries_total} counts the extra attempts). Each timed route costs every request a timer sample, a
 * {@code String.format}ted exchange property and counter updates: with four timed routes per request that was about a
 * tenth of the gateway's CPU per request (docs/design/request-path.md, "Per-request cost"). {@code inference} itself is
 * timed by a {@link RouteTimer} instead of camel-micrometer's policy: the same meters without the formatted property.
 */
final class RouteTimers {

    /** Camel's pattern syntax (route ids, {@code *} wildcards), comma-separated. */
    static final String UNTIMED_ROUTES = "attempts,attempt-*,chat-completions,completions,generate,embeddings,rerank,"
            + "rerank-legacy,classify,tokenize,detokenize,responses";

    /** The route every inference request runs once, timed by {@link RouteTimer} rather than camel-micrometer's policy. */
    static final String INFERENCE_ROUTE = "inference";

    private RouteTimers() {
    }

    /**
     * Applies {@link #UNTIMED_ROUTES} and {@link #INFERENCE_ROUTE} to the context's Micrometer route policy factory, if
     * it has one, and adds a factory giving {@link #INFERENCE_ROUTE} a {@link RouteTimer} with that factory's settings;
     * call before the routes start (their policies read the pattern then). Returns whether a factory was found.
     */
    static boolean excludeInnerRoutes(CamelContext context) {
        for (RoutePolicyFactory factory : context.getRoutePolicyFactories()) {
            if (factory instanceof MicrometerRoutePolicyFactory micrometer) {
                micrometer.getPolicyConfiguration().setExcludePattern(UNTIMED_ROUTES + "," + INFERENCE_ROUTE);
                context.addRoutePolicyFactory((camelContext, routeId, route) ->
                        INFERENCE_ROUTE.equals(routeId) ? new RouteTimer(micrometer) : null);
                return true;
            }
        }
        return false;
    }
}
