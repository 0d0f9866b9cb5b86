package dev.caravan.components.http;

import io.vertx.ext.web.Route;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gives the errors Vert.x Web answers before any Camel route runs the gateway's JSON error shape: a path it cannot
 * decode (400), an unknown path (404), a known path with another method (405), a body over {@code --max-payload-size}
 * (413, raised by the body handler while it reads the body or from {@code Content-Length}), and anything failing inside
 * the router (500). Each is reported to the {@link RequestObserver} so the metrics count them.
 */
public final class RouterErrorHandlers {

    private static final Logger LOG = LoggerFactory.getLogger(RouterErrorHandlers.class);

    /** The endpoint label of requests that matched no route. */
    public static final String UNMATCHED = "unmatched";

    private RouterErrorHandlers() {
    }

    /** Installs the handlers on a router (the gateway's: {@link GatewayHttpServer}). */
    public static void install(Router router, RequestObserver observer) {
        // Vert.x Web's own 400: a request path it cannot decode (a malformed percent-escape), before any route
        router.errorHandler(400, ctx -> answer(ctx, HttpError.INVALID_REQUEST,
                "malformed request path " + ctx.request().path(), observer));
        router.errorHandler(404, ctx -> answer(ctx, HttpError.NOT_FOUND,
                "no route for " + ctx.request().method() + " " + ctx.request().path(), observer));
        router.errorHandler(405, ctx -> answer(ctx, HttpError.METHOD_NOT_ALLOWED,
                ctx.request().method() + " is not allowed on " + ctx.request().path(), observer));
        router.errorHandler(413, ctx -> answer(ctx, HttpError.PAYLOAD_TOO_LARGE,
                "request body exceeds the gateway's max payload size", observer));
        router.errorHandler(500, ctx -> {
            if (ctx.failure() != null) {
                LOG.warn("Request to {} failed in the HTTP layer: {}", ctx.request().path(), ctx.failure().toString());
            }
            answer(ctx, HttpError.INTERNAL, "the gateway failed to process the request", observer);
        });
    }

    private static void answer(RoutingContext ctx, HttpError error, String message, RequestObserver observer) {
        if (ctx.response().ended()) {
            return; // already answered (e.g. a failure after a streaming step committed the response)
        }
        long start = System.nanoTime();
        ResponseWriter.writeError(ctx, error, message);
        Route route = ctx.currentRoute();
        // Only a body-limit failure happens inside a matched route; 404/405 matched nothing.
        String endpoint = error == HttpError.PAYLOAD_TOO_LARGE && route != null && route.getPath() != null
                ? route.getPath() : UNMATCHED;
        observer.onRequestComplete(null, endpoint, error.status(), System.nanoTime() - start);
    }
}
