package dev.caravan.gateway;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Map;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.ext.web.Router;
import org.apache.camel.CamelContext;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpRouter;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpServer;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpServerConfiguration;
import org.apache.camel.spi.Resource;
import org.apache.camel.support.CamelContextHelper;
import org.apache.camel.support.PluginHelper;
import org.apache.camel.support.service.ServiceSupport;
import org.apache.camel.util.AntPathMatcher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.caravan.policies.WorkerRegistry;
import dev.caravan.processors.admission.DrainOnStopNotifier;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.http.RouterErrorHandlers;
import dev.caravan.processors.http.ServerEventLoops;

/**
 * Adds the gateway — its beans, its YAML routes and, when the context has none, its HTTP server — to an existing
 * {@link CamelContext}. This is how an application embeds Caravan; {@code ./caravan run} uses the same beans and routes
 * through camel-main.
 *
 * <pre>{@code
 * CamelContext context = new DefaultCamelContext();
 * CaravanGateway gateway = CaravanGateway.install(context, GatewayConfig.defaults()
 *         .with(CaravanFlags.PORT, "8080")
 *         .with(CaravanFlags.WORKER_URLS, "http://10.0.0.5:8000,http://10.0.0.6:8000"));
 * context.start();          // the gateway answers on :8080
 * gateway.workers().all();  // the live worker registry
 * }</pre>
 *
 * <p>Call before the context starts (or on a started context: the routes start at once). Stopping the context stops the
 * gateway and releases its resources. The gateway's platform-http engine is used only if the context has not already
 * created one; a host context that serves its own platform-http routes keeps its engine, and streams then hold a Vert.x
 * worker thread each (see docs/architecture.md). Likewise a platform-http server the host created keeps Vert.x's bare
 * answers to requests that fail HTTP decoding (431, 414, 400 without a body) unless it takes its Vert.x instance from
 * the registry after the gateway bound its own there ({@link GatewayBeans#serverVertx()}).
 */
public final class CaravanGateway {

    private static final Logger LOG = LoggerFactory.getLogger(CaravanGateway.class);

    /** Where the built-in routes live on the classpath. */
    public static final String BUILT_IN_ROUTES = "classpath:routes/*.camel.yaml";

    private final CamelContext context;
    private final GatewayBeans beans;

    private CaravanGateway(CamelContext context, GatewayBeans beans) {
        this.context = context;
        this.beans = beans;
    }

    /**
     * Installs the gateway with the built-in routes.
     *
     * @throws IllegalArgumentException for an invalid policy configuration
     * @throws Exception                when the routes cannot be loaded
     */
    public static CaravanGateway install(CamelContext context, GatewayConfig config) throws Exception {
        return install(context, config, BUILT_IN_ROUTES);
    }

    /**
     * @param routes a resource pattern for the YAML routes, e.g. {@code file:/etc/caravan/routes/*.camel.yaml}
     */
    public static CaravanGateway install(CamelContext context, GatewayConfig config, String routes) throws Exception {
        config = GatewayBeans.withConcretePort(config);
        GatewayBeans beans = new GatewayBeans(config, CamelContextHelper.findSingleByType(context, Vertx.class),
                CamelContextHelper.findSingleByType(context, PrometheusMeterRegistry.class));
        bind(context, beans);
        context.addService(new Lifecycle(beans), true, true);
        context.getManagementStrategy().addEventNotifier(
                new DrainOnStopNotifier(beans.reliability().shutdown(), context));
        if (context.getRegistry().findByType(VertxPlatformHttpServer.class).isEmpty()
                && context.hasService(VertxPlatformHttpServer.class) == null) {
            VertxPlatformHttpServerConfiguration server = new VertxPlatformHttpServerConfiguration();
            server.setBindHost(config.host());
            server.setBindPort(config.port());
            server.setMaxBodySize(config.maxPayloadSize());
            context.addService(new GatewayHttpServer(server, beans.serverVertx()), true, true);
        }
        if (context.isStarted()) {
            loadRoutes(context, routes, beans.excludedRoutes());
            afterServerStart(context, beans);
        } else {
            context.addStartupListener((ctx, alreadyStarted) -> afterServerStart(ctx, beans));
            loadRoutes(context, routes, beans.excludedRoutes());
        }
        beans.registerStaticWorkers();
        return new CaravanGateway(context, beans);
    }

    /** Binds every bean and makes the configuration visible to route placeholders. */
    static void bind(CamelContext context, GatewayBeans beans) {
        beans.beans().forEach((name, bean) -> {
            if (!(bean instanceof Vertx) || context.getRegistry().lookupByName(name) == null) {
                context.getRegistry().bind(name, bean);
            }
        });
        for (Map.Entry<String, String> p : beans.properties().entrySet()) {
            context.getPropertiesComponent().addOverrideProperty(p.getKey(), p.getValue());
        }
    }

    private static void loadRoutes(CamelContext context, String pattern, String excluded) throws Exception {
        Collection<Resource> resources =
                new ArrayList<>(PluginHelper.getPackageScanResourceResolver(context).findResources(pattern));
        for (String exclude : excluded.split(",")) {
            if (!exclude.isBlank()) {
                resources.removeIf(r -> AntPathMatcher.INSTANCE.match(exclude, r.getLocation()));
            }
        }
        if (resources.isEmpty()) {
            throw new IllegalArgumentException("no routes found at " + pattern);
        }
        PluginHelper.getRoutesLoader(context).loadRoutes(resources);
    }

    /**
     * Once the platform-http server listens: starts the per-worker KV-event routes, gives the HTTP layer's own errors
     * (404, 405, 413) the gateway's JSON shape, and spreads the server over {@code --server-event-loops} event loops
     * ({@link ServerEventLoops}).
     */
    public static void afterServerStart(CamelContext context, GatewayBeans beans) {
        beans.kv().start(context); // KV-event routes from the kv-events routeTemplate, now that it is loaded
        VertxPlatformHttpRouter router = mainRouter(context);
        if (router == null) {
            LOG.warn("No platform-http router found; HTTP-layer errors keep Vert.x's default bodies");
            return;
        }
        RouterErrorHandlers.install(router, beans.metrics());
        VertxPlatformHttpServer server = router.getServer();
        if (server == null || server.getServer() == null || !(server.getServer().requestHandler() instanceof Router root)) {
            return;
        }
        RouterErrorHandlers.install(root, beans.metrics());
        int extra = beans.config().serverEventLoops() - 1;
        if (extra > 0 && server.getConfigurationPort() == 0) {
            LOG.info("HTTP server on an ephemeral port: it stays on one event loop (loops share concrete ports only)");
        } else if (extra > 0) {
            beans.addServerEventLoops(ServerEventLoops.add(router.vertx(), root, server.getHost(),
                    server.getServer().actualPort(), extra, beans.metrics()));
        }
    }

    static VertxPlatformHttpRouter mainRouter(CamelContext context) {
        VertxPlatformHttpRouter fallback = null;
        for (VertxPlatformHttpRouter r : context.getRegistry().findByType(VertxPlatformHttpRouter.class)) {
            if (r.isMainServer()) {
                return r;
            }
            if (!r.isManagementServer()) {
                fallback = r;
            }
        }
        return fallback;
    }

    /** The port the gateway's HTTP server listens on (the actual one when configured as 0). */
    public int port() {
        return actualPort(context, beans.config().port());
    }

    /** The port the context's main platform-http server listens on, or {@code configured} before it started. */
    public static int actualPort(CamelContext context, int configured) {
        VertxPlatformHttpRouter router = mainRouter(context);
        if (router != null && router.getServer() != null && router.getServer().getServer() != null) {
            return router.getServer().getServer().actualPort();
        }
        return configured;
    }

    public WorkerRegistry workers() {
        return beans.workers();
    }

    public GatewayBeans beans() {
        return beans;
    }

    /**
     * The platform-http server the gateway creates when the context has none: Camel's, on the gateway's server Vert.x
     * ({@link GatewayBeans#serverVertx()}) even when the host application registered a Vert.x instance of its own, so
     * requests that fail HTTP decoding get the JSON error shape (Camel would otherwise take the registry's instance).
     */
    private static final class GatewayHttpServer extends VertxPlatformHttpServer {
        private final Vertx vertx;

        GatewayHttpServer(VertxPlatformHttpServerConfiguration configuration, Vertx vertx) {
            super(configuration);
            this.vertx = vertx;
        }

        @Override
        protected Vertx lookupVertx() {
            return vertx;
        }
    }

    /** Closes the gateway's resources after the context's routes and server have stopped. */
    private static final class Lifecycle extends ServiceSupport {
        private final GatewayBeans beans;

        Lifecycle(GatewayBeans beans) {
            this.beans = beans;
        }

        @Override
        protected void doStop() {
            beans.close();
        }
    }
}
