package dev.caravan.app;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
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

import dev.caravan.components.http.GatewayHttpServer;
import dev.caravan.components.http.ListenException;
import dev.caravan.gateway.CaravanGateway;
import dev.caravan.gateway.ConfigPlaceholders;
import dev.caravan.gateway.GatewayBeans;
import dev.caravan.policies.Worker;
import dev.caravan.processors.config.ArgsParser;
import dev.caravan.processors.config.CaravanFlag;
import dev.caravan.processors.config.ConfigResolver;
import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.flow.FlowFeature;
import dev.caravan.processors.metrics.MetricsFeature;

/**
 * {@code ./caravan run}: the gateway as a camel-main application. Resolves the configuration (flags &gt; environment &gt;
 * {@code --config} file &gt; {@code config/application.properties} &gt; defaults), builds the beans, lets camel-main load
 * the YAML routes — the built-in ones from the classpath, or those in {@code --routes DIR}, which then reload live when
 * edited (new files included) — and attaches the gateway's own HTTP server on {@code --port}
 * ({@link CaravanGateway#attach}, the path an embedding application takes through {@code install}).
 *
 * <p>Fails fast: when the context cannot start (the port is taken, a route does not start, ...) the process prints one
 * line naming the cause ({@code caravan run: Caravan gateway cannot listen on 0.0.0.0:30000: Address already in use})
 * and exits with status 1; bad flags exit with status 2.
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
            applyLogLevel(resolved.config().get(CoreFlags.LOG_LEVEL));
            LogFile.add(resolved.config().get(CoreFlags.LOG_DIR));
            LOG.info("Configuration from {}", String.join(" < ", resolved.sources()));
            warnAboutKeysOnCommandLine(args);
            // a taken port fails in a second instead of after loading everything (start() checks again when binding)
            GatewayHttpServer.checkFree(resolved.config().host(), resolved.config().port());
            int metricsPort = resolved.config().getInt(MetricsFeature.PROMETHEUS_PORT);
            if (metricsPort > 0) {
                String metricsHost = resolved.config().get(MetricsFeature.PROMETHEUS_HOST);
                try {
                    GatewayHttpServer.checkFree(metricsHost, metricsPort);
                } catch (ListenException e) {
                    throw new ListenException(metricsHost + ":" + metricsPort + " (metrics)", e.getCause());
                }
            }
            main = create(resolved.config(), resolved.others());
        } catch (ListenException e) {
            System.err.println("caravan run: " + e.getMessage());
            System.exit(1);
            return;
        } catch (IllegalArgumentException | IllegalStateException e) {
            // bad flags, values, worker URLs or policy options: say which, without a stack trace
            System.err.println("caravan run: " + e.getMessage());
            System.exit(2);
            return;
        }
        try {
            main.run();
        } catch (Exception e) {
            System.err.println("caravan run: " + startFailureLine(e));
            main.completed(); // camel-main's JVM hook then has nothing to wait for
            System.exit(1);
        }
    }

    /**
     * A key given as a flag is visible to every user of the machine ({@code ps}, {@code /proc/<pid>/cmdline}) and in a
     * pod's spec; it still works (SGLang takes it so), with a warning that names the better places. A placeholder such
     * as {@code --api-key '{{secret:caravan-api-keys/api-key}}'} holds no key and passes.
     */
    static void warnAboutKeysOnCommandLine(String[] args) {
        keysOnCommandLine(args).forEach(LOG::warn);
    }

    /** The warnings {@link #warnAboutKeysOnCommandLine} logs, one per key flag given a literal key. */
    static List<String> keysOnCommandLine(String[] args) {
        Map<String, String> flags = ArgsParser.parse(args).properties();
        List<String> warnings = new ArrayList<>();
        for (CaravanFlag key : List.of(CoreFlags.API_KEY, CoreFlags.ADMIN_API_KEY)) {
            String value = flags.get(key.key());
            if (value != null && !value.isEmpty() && !value.contains("{{")) {
                warnings.add(key.flag() + " on the command line is visible in the process list and the pod spec: set "
                        + key.envVar() + " instead, or in Kubernetes '" + key.key()
                        + " = {{secret:NAME/KEY}}' (docs/kubernetes.md)");
            }
        }
        return warnings;
    }

    /** One line for a failed start: the listen failure if there was one, else the innermost cause's message. */
    public static String startFailureLine(Throwable failure) {
        ListenException listen = ListenException.find(failure);
        if (listen != null) {
            return listen.getMessage();
        }
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = root.getMessage() == null ? root.toString() : root.getMessage();
        return "cannot start: " + message.replaceAll("\\s*\\R\\s*", " ");
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
        // {{secret:name/key}} (API keys from a Kubernetes Secret) and other property functions, resolved once
        GatewayConfig config = ConfigPlaceholders.resolve(requested, others);
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
        // no platform-http routes of the application's own here: route files written with platform-http: URIs (as
        // before caravan-http:) serve on the gateway's server too
        main.bind("platform-http", CaravanGateway.platformHttpOnGatewayServer(beans));
        Map<String, String> props = new LinkedHashMap<>(others);
        props.putAll(beans.properties());
        props.putAll(camelProperties(config, beans.excludedRoutes()));
        // camel-main's JVM hook waits for the context only this long (plus 15 s): it must cover the drain
        props.putIfAbsent("camel.main.shutdownTimeout",
                Long.toString(config.getLong(FlowFeature.SHUTDOWN_GRACE_PERIOD_SECS) + 15));
        props.forEach(main::addOverrideProperty);
        main.addMainListener(new MainListenerSupport() {
            @Override
            public void afterConfigure(BaseMainSupport m) {
                beans.tuning().timeRoutes(m.getCamelContext());
                // the gateway's HTTP server, the drain on SIGTERM/SIGINT (docs/reliability.md); the beans close when
                // the context stops; camel-main loads the routes
                try {
                    CaravanGateway.attach(m.getCamelContext(), beans, null);
                } catch (Exception e) {
                    beans.close();
                    throw new IllegalStateException(e.getMessage(), e);
                }
            }

            @Override
            public void afterStart(BaseMainSupport m) {
                beans.tuning().skipUnheardExchangeEvents(m.getCamelContext());
                LOG.info("Caravan gateway started on {}:{} (policy {}, {} worker(s))", config.host(),
                        CaravanGateway.port(m.getCamelContext()), config.policyName(), beans.workers().size());
            }
        });
        return main;
    }

    /** The camel-main settings the gateway's configuration implies. */
    static Map<String, String> camelProperties(GatewayConfig config, String excluded) {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("camel.main.name", "caravan");
        if (!excluded.isEmpty()) {
            p.put("camel.main.routesExcludePattern", excluded);
        }
        String routesDir = config.get(CoreFlags.ROUTES);
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
