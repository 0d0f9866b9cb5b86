package dev.caravan.gateway;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.camel.CamelContext;
import org.apache.camel.Route;
import org.apache.camel.component.platform.http.PlatformHttpEndpoint;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpRouter;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.caravan.components.http.CaravanPlatformHttpEngine;
import dev.caravan.components.http.GatewayHttpServer;

/**
 * Says at start-up, once, when the host application has a platform-http server of its own (camel-main's
 * {@code camel.server.*}, a {@code VertxPlatformHttpServer} it added, or a router another runtime bound), and what
 * follows: the host's {@code platform-http:} routes stay on that server with Camel's dispatch (a Vert.x worker thread
 * each) and its error pages, while the gateway's endpoints are on the gateway's own server, with its dispatch, JSON
 * errors and metrics. Nothing is said when the gateway's server is the only one.
 */
final class HostServers {

    private static final Logger LOG = LoggerFactory.getLogger(HostServers.class);

    private HostServers() {
    }

    /**
     * @param dispatch the gateway's {@code --dispatch} setting, for the message
     */
    static void report(CamelContext context, GatewayHttpServer gateway, String dispatch) {
        List<String> servers = describe(context);
        if (servers.isEmpty()) {
            return;
        }
        LOG.info("The application has its own platform-http server ({}) with {} platform-http: route(s): they stay "
                        + "there, with Camel's worker-thread dispatch and error pages. The gateway's endpoints are on "
                        + "its own server at {}:{} (caravan-http: routes, {} dispatch, JSON errors, caravan_* metrics)",
                String.join(", ", servers), hostRoutes(context), gateway.host(), gateway.port(), dispatch);
    }

    /** The host's platform-http servers as {@code host:port}, and routers bound by something other than a Camel server. */
    static List<String> describe(CamelContext context) {
        List<String> servers = new ArrayList<>();
        for (VertxPlatformHttpServer server : context.hasServices(VertxPlatformHttpServer.class)) {
            servers.add(server.getHost() + ":" + server.getPort());
        }
        for (Map.Entry<String, VertxPlatformHttpRouter> e
                : context.getRegistry().findByTypeWithName(VertxPlatformHttpRouter.class).entrySet()) {
            if (!e.getKey().equals(GatewayHttpServer.ROUTER_NAME) && e.getValue().getServer() == null) {
                servers.add("router " + e.getKey());
            }
        }
        return servers;
    }

    /** Routes consuming from a platform-http endpoint that is not the gateway's. */
    static long hostRoutes(CamelContext context) {
        int n = 0;
        for (Route route : context.getRoutes()) {
            if (route.getEndpoint() instanceof PlatformHttpEndpoint endpoint
                    && !(endpoint.getComponent().getEngine() instanceof CaravanPlatformHttpEngine)) {
                n++;
            }
        }
        return n;
    }
}
