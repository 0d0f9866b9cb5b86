package dev.caravan.gateway;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.apache.camel.CamelContext;
import org.apache.camel.Component;
import org.apache.camel.Ordered;
import org.apache.camel.StartupListener;
import org.apache.camel.component.platform.http.PlatformHttpComponent;
import org.apache.camel.spi.Resource;
import org.apache.camel.support.CamelContextHelper;
import org.apache.camel.support.PluginHelper;
import org.apache.camel.support.service.ServiceSupport;
import org.apache.camel.util.AntPathMatcher;

import dev.caravan.components.http.CaravanPlatformHttpEngine;
import dev.caravan.components.http.GatewayHttpServer;
import dev.caravan.policies.WorkerRegistry;
import dev.caravan.processors.admission.DrainOnStopNotifier;
import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.config.GatewayConfig;

/**
 * Adds the gateway — its beans, its YAML routes and its own HTTP server — to an existing {@link CamelContext}. This is
 * how an application embeds Caravan (docs/embedding.md); {@code ./caravan run} uses the same beans, routes and server
 * through camel-main.
 *
 * <pre>{@code
 * CamelContext context = new DefaultCamelContext();
 * CaravanGateway gateway = CaravanGateway.install(context, GatewayConfig.defaults()
 *         .with(CoreFlags.PORT, "8080")
 *         .with(CoreFlags.WORKER_URLS, "http://10.0.0.5:8000,http://10.0.0.6:8000"));
 * context.start();          // throws if the gateway cannot listen on :8080
 * gateway.workers().all();  // the live worker registry
 * }</pre>
 *
 * <p>Call before the context starts (or on a started context: the routes and the server start at once). The gateway's
 * routes ({@code caravan-http:} URIs) run on the gateway's own server, Vert.x instance and dispatch settings; the host's
 * {@code platform-http:} routes keep Camel's engine and the host's own server, so neither can slow the other down
 * ({@link HostServers}).
 *
 * <p>The server listens only while every route is on its router ({@link ListenWhileRouted}): a request to a path the
 * gateway serves is refused or routed, never answered 404. {@code context.start()} binds it once the routes have
 * started and throws when it cannot (a {@link dev.caravan.components.http.ListenException} in the cause chain), after
 * stopping the context; it also throws when the Camel version is outside {@link CamelCompatibility#RANGE}.
 * {@code context.stop()} first drains in-flight requests for up to {@code --shutdown-grace-period-secs}, then closes
 * the server, stops the routes and closes the gateway's Vert.x instance.
 */
public final class CaravanGateway {

    /** Where the built-in routes live on the classpath. */
    public static final String BUILT_IN_ROUTES = "classpath:routes/*.camel.yaml";

    private final GatewayBeans beans;

    private CaravanGateway(GatewayBeans beans) {
        this.beans = beans;
    }

    /**
     * Installs the gateway with the built-in routes.
     *
     * @throws IllegalStateException    when the context's Camel version is not supported ({@link CamelCompatibility})
     * @throws IllegalArgumentException for an invalid configuration, or a placeholder ({@code {{secret:name/key}}})
     *                                  that cannot be resolved ({@link ConfigPlaceholders})
     * @throws Exception                when the routes cannot be loaded
     */
    public static CaravanGateway install(CamelContext context, GatewayConfig config) throws Exception {
        return install(context, config, BUILT_IN_ROUTES);
    }

    /**
     * @param routes a resource pattern for the YAML routes, e.g. {@code file:/etc/caravan/routes/*.camel.yaml}
     */
    public static CaravanGateway install(CamelContext context, GatewayConfig config, String routes) throws Exception {
        CamelCompatibility.check(context);
        // {{secret:name/key}} and other property functions in settings: resolved by the host's context
        GatewayConfig resolved = ConfigPlaceholders.resolve(config, context);
        GatewayBeans beans = new GatewayBeans(resolved, null,
                CamelContextHelper.findSingleByType(context, PrometheusMeterRegistry.class));
        try {
            CaravanGateway gateway = addTo(context, beans, routes);
            beans.registerStaticWorkers();
            return gateway;
        } catch (Exception | Error e) {
            beans.close();
            throw e;
        }
    }

    /**
     * Adds beans built elsewhere to the context, with the gateway's server, drain on stop and start-up checks; loads the
     * routes at {@code routes} unless it is null (camel-main loads them itself in {@code ./caravan run}, where they
     * can reload live). Registers no workers.
     */
    public static CaravanGateway attach(CamelContext context, GatewayBeans beans, String routes) throws Exception {
        CamelCompatibility.check(context);
        return addTo(context, beans, routes);
    }

    private static CaravanGateway addTo(CamelContext context, GatewayBeans beans, String routes) throws Exception {
        bind(context, beans);
        // with --camel-tuning (the default), consecutive steps of the gateway's own run as one Camel step
        beans.tuning().install(context, beans.beans());
        // readiness and liveness in Camel's health-check registry: camel-main's health endpoint and /readiness,
        // /liveness read the same checks
        beans.healthChecks().register(context);
        // stopped after the routes: closes the beans, the server's Vert.x among them
        context.addService(new Lifecycle(beans), true, true);
        // the server listens from the moment the routes have started until the drain has ended
        ListenWhileRouted listening = new ListenWhileRouted(beans.http(),
                new DrainOnStopNotifier(beans.flow().shutdown(), context));
        context.getManagementStrategy().addEventNotifier(listening);
        if (routes != null) {
            loadRoutes(context, routes, beans.excludedRoutes()); // on a started context they start at once
        }
        Started started = new Started(beans, listening);
        if (context.isStarted()) {
            started.start(context); // a running application's: the routes above have started; throws if it cannot bind
        } else {
            context.addStartupListener(started);
        }
        if (beans.metricsHttp() != null) {
            context.addService(beans.metricsHttp(), true, false);
        }
        return new CaravanGateway(beans);
    }

    /** Binds every bean and makes the configuration visible to route placeholders. */
    static void bind(CamelContext context, GatewayBeans beans) {
        beans.beans().forEach((name, bean) -> context.getRegistry().bind(name, bean));
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

    /** The port the gateway's HTTP server listens on (the actual one when configured as 0). */
    public int port() {
        return beans.http().port();
    }

    /** The port of the metrics listener ({@code --prometheus-port}; the actual one when 0), or -1 when there is none. */
    public int metricsPort() {
        return beans.metricsHttp() == null ? -1 : beans.metricsHttp().port();
    }

    /**
     * The port of the gateway installed in {@code context} (e.g. by camel-main in {@code ./caravan run}).
     *
     * @throws IllegalStateException when the context has no gateway
     */
    public static int port(CamelContext context) {
        Lifecycle gateway = context.hasService(Lifecycle.class);
        if (gateway == null) {
            throw new IllegalStateException("no Caravan gateway in Camel context " + context.getName());
        }
        return gateway.beans.http().port();
    }

    /**
     * A {@code platform-http} component on the gateway's server, for an application whose only HTTP routes are the
     * gateway's ({@code ./caravan run}): route files written with {@code platform-http:} URIs then run there too. Never
     * bind it in an application with platform-http routes of its own.
     */
    public static Component platformHttpOnGatewayServer(GatewayBeans beans) {
        PlatformHttpComponent gateway = (PlatformHttpComponent) beans.beans().get(CaravanPlatformHttpEngine.COMPONENT_NAME);
        return ((CaravanPlatformHttpEngine) gateway.getEngine()).newComponent();
    }

    public WorkerRegistry workers() {
        return beans.workers();
    }

    public GatewayBeans beans() {
        return beans;
    }

    /**
     * The rest of the gateway's start, once its server listens: the per-worker KV-event routes, the features (the
     * control feature then creates the per-worker control routes from their routeTemplate), then a word about a
     * platform-http server of the host's. On the context's first start that is when it has fully started; a server
     * that could not bind then stops the context before the failure propagates from {@code context.start()}, so nothing
     * runs without it. Installed into a started context, {@link CaravanGateway#install} calls {@link #start} itself.
     */
    private static final class Started implements StartupListener, Ordered {
        private final GatewayBeans beans;
        private final ListenWhileRouted listening;
        private final AtomicBoolean done = new AtomicBoolean();

        Started(GatewayBeans beans, ListenWhileRouted listening) {
            this.beans = beans;
            this.listening = listening;
        }

        /** Camel calls this during the start and again whenever a route is added later: nothing to do. */
        @Override
        public void onCamelContextStarted(CamelContext context, boolean alreadyStarted) {
        }

        @Override
        public void onCamelContextFullyStarted(CamelContext context, boolean alreadyStarted) {
            try {
                start(context);
            } catch (RuntimeException | Error e) {
                context.stop();
                throw e;
            }
        }

        void start(CamelContext context) {
            if (!done.compareAndSet(false, true)) {
                return;
            }
            listening.listen();
            beans.kv().start(context);
            beans.start(context);
            HostServers.report(context, beans.http(), beans.config().get(CoreFlags.DISPATCH));
        }

        @Override
        public int getOrder() {
            return Ordered.LOWEST;
        }
    }

    /** Closes the gateway's resources (the server among them, if still open) after the context's routes have stopped. */
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
