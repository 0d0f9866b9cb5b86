package dev.caravan.examples.embedded;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;

import org.apache.camel.CamelContext;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpServer;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpServerConfiguration;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.PluginHelper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.caravan.gateway.CaravanGateway;
import dev.caravan.processors.config.GatewayConfig;

/**
 * An existing Camel application on a plain {@link DefaultCamelContext} that embeds the gateway: its own HTTP server and
 * routes ({@link HostRoutes}, {@code app-routes/*.camel.yaml}), then {@link CaravanGateway#install} and one
 * {@code context.start()} for both. Stopping the context drains the gateway's in-flight requests, then stops both.
 *
 * <pre>
 * java -cp ... dev.caravan.examples.embedded.EmbeddedApp --app-port 8080 --port 30000 --worker-urls http://127.0.0.1:8000
 * </pre>
 * {@code --app-host}/{@code --app-port} place the application's server (default 0.0.0.0:8080); every other argument is a
 * gateway flag, as for {@code ./caravan run} (docs/configuration.md). SIGTERM (Ctrl-C) stops it gracefully.
 */
public final class EmbeddedApp implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedApp.class);

    /** The application's own YAML routes (not under {@code routes/}, where the gateway's built-in routes live). */
    public static final String APP_ROUTES = "classpath:app-routes/*.camel.yaml";
    /** How long the application's report endpoint blocks. */
    public static final Duration REPORT_TIME = Duration.ofSeconds(3);

    private final CamelContext context;
    private final VertxPlatformHttpServer appServer;
    private final CaravanGateway gateway;

    private EmbeddedApp(CamelContext context, VertxPlatformHttpServer appServer, CaravanGateway gateway) {
        this.context = context;
        this.appServer = appServer;
        this.gateway = gateway;
    }

    /**
     * Builds and starts the application with the gateway in it.
     *
     * @throws Exception when either cannot start — e.g. a port is taken (then nothing is left running)
     */
    public static EmbeddedApp start(String appHost, int appPort, GatewayConfig gatewayConfig, Duration reportTime)
            throws Exception {
        CamelContext context = new DefaultCamelContext();
        context.getCamelContextExtension().setName("embedded-app");

        // 1. the application's own platform-http server and routes
        VertxPlatformHttpServerConfiguration http = new VertxPlatformHttpServerConfiguration();
        http.setBindHost(appHost);
        http.setBindPort(appPort);
        VertxPlatformHttpServer appServer = new VertxPlatformHttpServer(http);
        context.addService(appServer);
        context.addRoutes(new HostRoutes(reportTime));
        PluginHelper.getRoutesLoader(context)
                .loadRoutes(PluginHelper.getPackageScanResourceResolver(context).findResources(APP_ROUTES));

        // 2. the gateway: its beans, its routes (caravan-http:) and its own server on gatewayConfig's host and port
        CaravanGateway gateway = CaravanGateway.install(context, gatewayConfig);

        // 3. one start for both; it throws if either server cannot listen
        context.start();
        return new EmbeddedApp(context, appServer, gateway);
    }

    public CamelContext context() {
        return context;
    }

    public CaravanGateway gateway() {
        return gateway;
    }

    /** The port of the application's own server. */
    public int appPort() {
        return appServer.getServer().actualPort();
    }

    public int gatewayPort() {
        return gateway.port();
    }

    /** Drains the gateway's in-flight requests (up to its shutdown grace period), then stops everything. */
    @Override
    public void close() {
        context.stop();
    }

    public static void main(String[] args) throws Exception {
        ExampleArgs parsed = ExampleArgs.parse(args);
        EmbeddedApp app = start(parsed.appHost(), parsed.appPort(), parsed.gateway(), REPORT_TIME);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            app.close();
            stopped.countDown();
        }, "embedded-app-shutdown"));
        LOG.info("Embedded example ready: application on {}:{}, gateway on {}:{}", parsed.appHost(), app.appPort(),
                parsed.gateway().host(), app.gatewayPort());
        stopped.await();
    }
}
