package dev.caravan.examples.embedded;

import java.time.Duration;

import org.apache.camel.main.BaseMainSupport;
import org.apache.camel.main.Main;
import org.apache.camel.main.MainListenerSupport;

import dev.caravan.gateway.CaravanGateway;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.flow.FlowFeature;

/**
 * The same application on camel-main: camel-main runs the application's server ({@code camel.server.*}) and loads its
 * routes, and a {@link org.apache.camel.main.MainListener} installs the gateway once camel-main has configured the
 * context and before it starts it. {@code main.run()} then blocks until Ctrl-C (SIGTERM), which drains the gateway's
 * in-flight requests before stopping.
 */
public final class CamelMainApp {

    private CamelMainApp() {
    }

    /**
     * A configured camel-main {@link Main}: {@code run()} blocks, {@code start()}/{@code completed()} serve tests.
     *
     * @param appPort    the port of the application's own server (camel-main's {@code camel.server.port})
     * @param gateway    the gateway's configuration, including its own port
     * @param reportTime how long the application's report endpoint blocks
     */
    public static Main create(String appHost, int appPort, GatewayConfig gateway, Duration reportTime) {
        Main main = new Main();
        main.configure().addRoutesBuilder(new HostRoutes(reportTime));
        main.configure().withRoutesIncludePattern(EmbeddedApp.APP_ROUTES);
        main.addInitialProperty("camel.main.name", "camel-main-app");
        main.addInitialProperty("camel.server.enabled", "true");
        main.addInitialProperty("camel.server.host", appHost);
        main.addInitialProperty("camel.server.port", Integer.toString(appPort));
        // camel-main's JVM hook waits this long (plus 15 s) for the context to stop: cover the gateway's drain
        main.addInitialProperty("camel.main.shutdownTimeout",
                Long.toString(gateway.getLong(FlowFeature.SHUTDOWN_GRACE_PERIOD_SECS) + 15));
        main.addMainListener(new InstallGateway(gateway));
        return main;
    }

    /** Installs the gateway into camel-main's context after it is configured and before it starts. */
    public static final class InstallGateway extends MainListenerSupport {
        private final GatewayConfig config;
        private volatile CaravanGateway gateway;

        public InstallGateway(GatewayConfig config) {
            this.config = config;
        }

        @Override
        public void afterConfigure(BaseMainSupport main) {
            try {
                gateway = CaravanGateway.install(main.getCamelContext(), config);
            } catch (Exception e) {
                throw new IllegalStateException("cannot install the Caravan gateway: " + e.getMessage(), e);
            }
        }

        /** The installed gateway, or null before camel-main configured the context. */
        public CaravanGateway gateway() {
            return gateway;
        }
    }

    /** Same arguments as {@link EmbeddedApp}; blocks until SIGTERM (Ctrl-C). */
    public static void main(String[] args) throws Exception {
        ExampleArgs parsed = ExampleArgs.parse(args);
        create(parsed.appHost(), parsed.appPort(), parsed.gateway(), EmbeddedApp.REPORT_TIME).run();
    }
}
