package dev.caravan.app;

import org.apache.camel.CamelContext;
import org.apache.camel.component.micrometer.routepolicy.MicrometerRoutePolicyFactory;
import org.apache.camel.spi.RoutePolicyFactory;

/**
 * Which routes camel-main's Micrometer route policy times ({@code camel_exchanges_total}, {@code camel_route_...}):
 * all but the attempt loop's inner routes. {@code attempts} and the attempt bodies ({@code attempt-forward},
 * {@code attempt-pd-*}) run inside the {@code inference} route, once per attempt, reached through {@code direct:}; timing
 * them too cost each request two more timer samples, property writes and counter updates (about a tenth of the
 * gateway's CPU per request, docs/design/request-path.md "Per-request cost") for figures the inference route and
 * {@code caravan_retries_total} already give.
 */
final class RouteTimers {

    /** Camel's pattern syntax (route ids, {@code *} wildcards), comma-separated. */
    static final String UNTIMED_ROUTES = "attempts,attempt-*";

    private RouteTimers() {
    }

    /**
     * Applies {@link #UNTIMED_ROUTES} to the context's Micrometer route policy factory, if it has one; call before the
     * routes start (their policies read the pattern then). Returns whether a factory was found.
     */
    static boolean excludeInnerRoutes(CamelContext context) {
        for (RoutePolicyFactory factory : context.getRoutePolicyFactories()) {
            if (factory instanceof MicrometerRoutePolicyFactory micrometer) {
                micrometer.getPolicyConfiguration().setExcludePattern(UNTIMED_ROUTES);
                return true;
            }
        }
        return false;
    }
}
