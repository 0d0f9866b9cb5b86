package dev.caravan.app;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.camel.main.BaseMainSupport;
import org.apache.camel.main.Main;
import org.apache.camel.main.MainListenerSupport;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.config.Configurator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.caravan.gateway.CaravanGateway;
import dev.caravan.gateway.GatewayBeans;
import dev.caravan.processors.admission.DrainOnStopNotifier;
import dev.caravan.policies.Worker;
import dev.caravan.processors.config.ArgsParser;
import dev.caravan.processors.config.CaravanFlags;
import dev.caravan.processors.config.ConfigResolver;
import dev.caravan.processors.config.GatewayConfig;

/**
 * {@code ./caravan run}: the gateway as a camel-main application. Resolves the configuration (flags &gt; environment &gt;
 * {@code --config} file &gt; {@code config/application.properties} &gt; defaults), builds the beans, and lets camel-main
 * start the platform-http server on {@code --port} and load the YAML routes — the built-in ones from the classpath, or
 * those in {@code --routes DIR}, which then reload live when edited (new files included).
 */
public final class GatewayMain {

    private static final Logger LOG = LoggerFactory.getLogger(GatewayMain.class);

    private GatewayMain() {
    }

    public static void main(String[] args) throws Exception {
        Main main;
        try {
            ConfigResolver.Resolved resolved = ConfigResolver.resolve(args, System.getenv(),
                    Path.of("").toAbsolutePath());
            if (resolved.help()) {
                System.out.println(ArgsParser.help());
                return;
            }
            applyLogLevel(resolved.config().get(CaravanFlags.LOG_LEVEL));
            LOG.info("Configuration from {}", String.join(" < ", resolved.sources()));
            main = create(resolved.config(), resolved.others());
        } catch (IllegalArgumentException | IllegalStateException e) {
            // bad flags, values, worker URLs or policy options: say which, without a stack trace
            System.err.println("caravan run: " + e.getMessage());
            System.exit(2);
            return;
        }
        main.run();
    }

    /**
     * A configured camel-main {@link Main} for the gateway; {@code run()} blocks until shutdown (Ctrl-C), {@code start()}
     * and {@code stop()} serve tests and the demo. The beans are closed when Main stops.
     *
     * @param config the gateway configuration
     * @param others extra camel-main properties ({@code camel.*} keys from property files)
     */
    public static Main create(GatewayConfig requested, Map<String, String> others) {
        return create(requested, others, List.of());
    }

    /**
     * As {@link #create(GatewayConfig, Map)}, also registering {@code workers} (the demo's simulated engines, with
     * their KV-event endpoints) after the {@code --worker-urls}.
     */
    public static Main create(GatewayConfig requested, Map<String, String> others, List<Worker> workers) {
        GatewayConfig config = GatewayBeans.withConcretePort(requested);
        GatewayBeans beans = new GatewayBeans(config, null, null);
        try {
            beans.registerStaticWorkers();
            workers.forEach(beans.workers()::add);
        } catch (RuntimeException e) {
            beans.close();
            throw e;
        }
        Main main = new Main();
        beans.beans().forEach(main::bind);
        Map<String, String> props = new LinkedHashMap<>(others);
        props.putAll(beans.properties());
        props.putAll(camelProperties(config, beans.excludedRoutes()));
        // camel-main's JVM hook waits for the context only this long (plus 15 s): it must cover the drain
        props.putIfAbsent("camel.main.shutdownTimeout",
                Long.toString(config.getLong(CaravanFlags.SHUTDOWN_GRACE_PERIOD_SECS) + 15));
        props.forEach(main::addOverrideProperty);
        main.addMainListener(new MainListenerSupport() {
            @Override
            public void afterConfigure(BaseMainSupport m) {
                // SIGTERM/SIGINT: drain in-flight streams before Camel stops routes (docs/reliability.md)
                m.getCamelContext().getManagementStrategy().addEventNotifier(
                        new DrainOnStopNotifier(beans.reliability().shutdown(), m.getCamelContext()));
            }

            @Override
            public void afterStart(BaseMainSupport m) {
                CaravanGateway.afterServerStart(m.getCamelContext(), beans);
                LOG.info("Caravan gateway listening on {}:{} (policy {}, {} worker(s))", config.host(),
                        CaravanGateway.actualPort(m.getCamelContext(), config.port()), config.policyName(),
                        beans.workers().size());
            }

            @Override
            public void afterStop(BaseMainSupport m) {
                beans.close();
            }
        });
        return main;
    }

    /** The camel-main settings the gateway's configuration implies. */
    static Map<String, String> camelProperties(GatewayConfig config, String excluded) {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("camel.main.name", "caravan");
        p.put("camel.server.enabled", "true");
        p.put("camel.server.host", config.host());
        p.put("camel.server.port", Integer.toString(config.port()));
        p.put("camel.server.maxBodySize", Long.toString(config.maxPayloadSize()));
        if (!excluded.isEmpty()) {
            p.put("camel.main.routesExcludePattern", excluded);
        }
        String routesDir = config.get(CaravanFlags.ROUTES);
        if (routesDir.isEmpty()) {
            p.put("camel.main.routesIncludePattern", CaravanGateway.BUILT_IN_ROUTES);
        } else {
            Path dir = Path.of(routesDir).toAbsolutePath();
            if (!Files.isDirectory(dir)) {
                throw new IllegalArgumentException("--routes directory not found: " + dir);
            }
            p.put("camel.main.routesIncludePattern", "file:" + dir + "/*.camel.yaml");
            p.put("camel.main.routesReloadEnabled", "true");
            p.put("camel.main.routesReloadDirectory", dir.toString());
            p.put("camel.main.routesReloadPattern", "*.camel.yaml");
            // adding a new route file at runtime fails with the default (true): "duplicate route id"
            p.put("camel.main.routesReloadRemoveAllRoutes", "false");
        }
        return p;
    }

    /** Maps {@code --log-level} onto log4j2: Caravan's loggers at that level, the rest no chattier than INFO. */
    static void applyLogLevel(String level) {
        Level l = Level.toLevel(level.toUpperCase(java.util.Locale.ROOT), Level.INFO);
        Configurator.setLevel("dev.caravan", l);
        Configurator.setRootLevel(l.isMoreSpecificThan(Level.INFO) ? l : Level.INFO);
    }
}
