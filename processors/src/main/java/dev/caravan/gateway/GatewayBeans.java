package dev.caravan.gateway;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.apache.camel.CamelContext;

import dev.caravan.components.http.CaravanPlatformHttpEngine;
import dev.caravan.components.http.CorsPolicy;
import dev.caravan.components.http.GatewayHttpServer;
import dev.caravan.components.http.MetricsHttpServer;
import dev.caravan.policies.PolicyConfig;
import dev.caravan.policies.PolicyEnvironment;
import dev.caravan.policies.PolicyFactory;
import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerRegistry;
import dev.caravan.policies.WorkerRole;
import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.control.ControlFeature;
import dev.caravan.processors.control.WorkerControlRoutes;
import dev.caravan.processors.feature.Feature;
import dev.caravan.processors.feature.MapWiring;
import dev.caravan.processors.feature.OptionalFeature;
import dev.caravan.processors.feature.Wiring;
import dev.caravan.processors.flow.FlowFeature;
import dev.caravan.processors.health.GatewayHealthChecks;
import dev.caravan.processors.health.HealthFeature;
import dev.caravan.processors.kv.KvFeature;
import dev.caravan.processors.metrics.GatewayMetrics;
import dev.caravan.processors.metrics.MetricsFeature;
import dev.caravan.processors.pd.PdFeature;
import dev.caravan.processors.quality.QualityFeature;
import dev.caravan.processors.quality.ShadowPolicies;
import dev.caravan.processors.reliability.ReliabilityFeature;
import dev.caravan.processors.routing.DecisionObservers;
import dev.caravan.processors.routing.PolicyRegistry;
import dev.caravan.processors.tls.TlsSettings;
import dev.caravan.processors.tuning.CamelTuning;

/**
 * The gateway's object graph, built from a {@link GatewayConfig}: what every feature shares (the worker registry, the
 * regular pool's per-model policies, the request meters, the HTTP server, the TLS material, the Camel tuning, bound
 * under the names on {@link Wiring} or shared by type), then every feature of {@link Features} wired in list order,
 * each binding its own route steps under the names the YAML routes reference ({@link #beans()}), then the optional
 * modules this configuration enables. Nothing here depends on camel-main, so the same beans serve
 * {@code ./caravan run} and an application embedding the gateway ({@link CaravanGateway#install}).
 *
 * <p>Owns the Vert.x instance it creates (the ingress server's and the features' clients) and the JVM metric binders;
 * {@link #close()} closes the features in reverse order, then releases them, after the Camel context has stopped.
 */
public final class GatewayBeans implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(GatewayBeans.class);

    private final GatewayConfig config;
    private final Vertx vertx;
    private final boolean ownsVertx;
    private final PrometheusMeterRegistry meterRegistry;
    private final WorkerRegistry workers = new WorkerRegistry();
    private final PolicyRegistry policies;
    /** The --shadow-policies (none by default). */
    private final ShadowPolicies shadows;
    private final GatewayMetrics metrics;
    private final TlsSettings tls;
    private final CamelTuning tuning;
    private final JvmGcMetrics gcMetrics = new JvmGcMetrics();
    /** The built-in features, in wiring order ({@link Features#builtIn()}). */
    private final List<Feature> features = Features.builtIn();
    /** What the features are wired with; its bean map is {@link #beans()}. */
    private final MapWiring wiring;
    private final Map<String, Object> beans;
    private final Extensions extensions = Extensions.load();
    /** The optional modules this configuration turns on, e.g. replica sync and Kubernetes discovery. */
    private final List<OptionalFeature> enabled;
    private final GatewayHttpServer http;

    /**
     * @param config        the configuration
     * @param vertx         the Vert.x instance for the gateway's server and clients, or null to create one (what
     *                      {@link CaravanGateway#install} does, so a host application's Vert.x never carries the
     *                      gateway's traffic and the other way round)
     * @param meterRegistry the Prometheus registry to add the gateway's meters to, or null to create one
     * @throws IllegalArgumentException when the policy name or a policy option is invalid
     */
    public GatewayBeans(GatewayConfig config, Vertx vertx, PrometheusMeterRegistry meterRegistry) {
        this.config = config;
        config.warnings().forEach(LOG::warn); // SGLang flags accepted without effect here, one line each
        PolicyConfig policyConfig = PolicyConfig.fromOptions(config.policyName(), config.policyOptions());
        this.ownsVertx = vertx == null;
        this.vertx = vertx != null ? vertx : Vertx.vertx(new VertxOptions().setPreferNativeTransport(true));
        if (ownsVertx) { // epoll when netty-transport-native-epoll is on the class path (caravan-app ships it)
            LOG.info("Network transport: {}", this.vertx.isNativeTransportEnabled() ? "native (epoll)" : "Java NIO");
        }
        this.meterRegistry = meterRegistry != null ? meterRegistry
                : new PrometheusMeterRegistry(io.micrometer.prometheusmetrics.PrometheusConfig.DEFAULT);
        bindJvmMetrics();
        this.enabled = extensions.enabled(config);
        this.wiring = new MapWiring(config, this.vertx, workers, this.meterRegistry,
                enabled.stream().anyMatch(f -> f.discoversPrefillDecode(config)) || PdFeature.enabled(config));
        this.beans = wiring.beans();
        PolicyEnvironment env = kv().policyEnvironment(wiring, PolicyEnvironment.system());
        boolean canonicalOrder = false;
        for (OptionalFeature feature : enabled) {
            env = feature.policyEnvironment(wiring, env);
            canonicalOrder |= feature.canonicalWorkerOrder();
        }
        PolicyEnvironment policyEnv = env;
        this.policies = new PolicyRegistry(workers, WorkerRole.REGULAR,
                model -> QualityFeature.withParityFallback(config, PolicyFactory.create(policyConfig, policyEnv),
                        policyEnv), canonicalOrder);
        this.shadows = QualityFeature.shadows(config, workers, kv().groundTruth(), canonicalOrder);
        this.metrics = new GatewayMetrics(this.meterRegistry, MetricsFeature.durationBuckets(config));
        this.tls = tls(config);
        this.http = new GatewayHttpServer(this.vertx, config.host(), config.port(), config.maxPayloadSize(),
                config.serverEventLoops(), metrics, tls::server,
                CorsPolicy.handler(config.getList(CoreFlags.CORS_ALLOWED_ORIGINS)));
        metrics.trackPolicies(policies);
        workers.addListener(metrics);
        this.tuning = CamelTuning.of(config.getBoolean(CoreFlags.CAMEL_TUNING));
        defineBeans();
    }

    /**
     * The TLS material of {@code --tls-*}, {@code --client-*} and {@code --ca-cert-paths}.
     *
     * @throws IllegalArgumentException naming the flag of a missing half or an unreadable file
     */
    static TlsSettings tls(GatewayConfig config) {
        return TlsSettings.of(config.get(CoreFlags.TLS_CERT_PATH), config.get(CoreFlags.TLS_KEY_PATH),
                config.get(CoreFlags.CLIENT_CERT_PATH), config.get(CoreFlags.CLIENT_KEY_PATH),
                config.getList(CoreFlags.CA_CERT_PATHS));
    }

    private void bindJvmMetrics() {
        new JvmMemoryMetrics().bindTo(meterRegistry);
        new JvmThreadMetrics().bindTo(meterRegistry);
        new ClassLoaderMetrics().bindTo(meterRegistry);
        new ProcessorMetrics().bindTo(meterRegistry);
        new UptimeMetrics().bindTo(meterRegistry);
        gcMetrics.bindTo(meterRegistry);
    }

    private void defineBeans() {
        // infrastructure: the gateway's own HTTP server (its router) and the caravan-http: component the routes use
        beans.put(Wiring.METRICS_REGISTRY, meterRegistry);
        beans.put(GatewayHttpServer.ROUTER_NAME, http.router());
        beans.put(CaravanPlatformHttpEngine.COMPONENT_NAME,
                new CaravanPlatformHttpEngine(http, metrics, config.dispatchOnEventLoop(), tuning.messages())
                        .newComponent());
        // what every feature may use, built here before any feature wires
        beans.put(Wiring.GATEWAY_CONFIG, config);
        beans.put(Wiring.WORKER_REGISTRY, workers);
        beans.put(Wiring.POLICY_REGISTRY, policies);
        beans.put(Wiring.GATEWAY_METRICS, metrics);
        DecisionObservers decisions = new DecisionObservers();
        decisions.add(metrics);
        decisions.add(kv().decisions());
        wiring.share(DecisionObservers.class, decisions);
        wiring.share(ShadowPolicies.class, shadows);
        wiring.share(CamelTuning.class, tuning);
        wiring.share(TlsSettings.class, tls);
        wiring.share(GatewayHttpServer.class, http);
        // every feature in the order of Features: each binds its route steps and shares what later ones build on
        for (Feature feature : features) {
            wiring.wire(feature);
        }
        // the optional modules the configuration turns on, e.g. Kubernetes service discovery (discovery.camel.yaml)
        // with --service-discovery, replica sync (which hands a joining replica a peer's block index)
        for (OptionalFeature feature : enabled) {
            wiring.wire(feature);
        }
    }

    /**
     * Ant-style patterns (comma-separated, camel-main's {@code routesExcludePattern} syntax) of the route files this
     * configuration leaves out: those of optional modules it does not enable. Empty when none.
     */
    public String excludedRoutes() {
        return extensions.excludedRoutes(config);
    }

    /** Registers the {@code --worker-urls} workers (and the P/D {@code --prefill} / {@code --decode} ones). */
    public void registerStaticWorkers() {
        for (String url : config.workerUrls()) {
            workers.add(Worker.builder(url).build());
        }
        PdFeature.registerStaticWorkers(config, workers);
    }

    /**
     * The built-in feature whose {@code wire} bound a bean, or null for a bean bound by the assembler itself (the shared
     * objects, the KV-event pipeline's) or by an optional module.
     */
    Class<? extends Feature> binder(String name) {
        return wiring.binder(name);
    }

    /** Every bean by the name the routes use. */
    public Map<String, Object> beans() {
        return beans;
    }

    /**
     * The properties Camel placeholders resolve: every {@code caravan.*} setting but the API keys, plus values derived
     * from them for the routes ({@code caravan.derived.*}: milliseconds and on/off switches the YAML needs as literals).
     */
    public Map<String, String> properties() {
        Map<String, String> p = new LinkedHashMap<>(config.asProperties());
        // no route needs the keys; as Camel properties they would show in Camel's tooling (dev console, summaries)
        p.remove(CoreFlags.API_KEY.key());
        p.remove(CoreFlags.ADMIN_API_KEY.key());
        p.putAll(wiring.properties());
        return p;
    }

    /** The gateway's Camel tuning, on or off ({@code --camel-tuning}). */
    public CamelTuning tuning() {
        return tuning;
    }

    public GatewayConfig config() {
        return config;
    }

    public Vertx vertx() {
        return vertx;
    }

    /**
     * The gateway's own HTTP server: {@link CaravanGateway} starts it once every route has started and stops it after
     * the drain, before the routes stop.
     */
    public GatewayHttpServer http() {
        return http;
    }

    /**
     * The metrics listener of {@code --prometheus-port}, or null when it is -1 (a Camel service like {@link #http()}).
     */
    public MetricsHttpServer metricsHttp() {
        return feature(MetricsFeature.class).listener();
    }

    public WorkerRegistry workers() {
        return workers;
    }

    public PolicyRegistry policies() {
        return policies;
    }

    /** The KV-event pipeline (docs/kv-events.md). */
    public KvFeature kv() {
        return feature(KvFeature.class);
    }

    public GatewayMetrics metrics() {
        return metrics;
    }

    /** Breakers and retries. */
    public ReliabilityFeature reliability() {
        return feature(ReliabilityFeature.class);
    }

    /** Admission, draining, tenants, their rate limits and the tenants file's reloads. */
    public FlowFeature flow() {
        return feature(FlowFeature.class);
    }

    /** The gateway's instance of a built-in feature. */
    public <F extends Feature> F feature(Class<F> type) {
        for (Feature f : features) {
            if (type.isInstance(f)) {
                return type.cast(f);
            }
        }
        throw new IllegalArgumentException("no built-in feature " + type.getSimpleName());
    }

    /** The gateway's checks in Camel's health-check registry, behind /readiness and /liveness. */
    public GatewayHealthChecks healthChecks() {
        return feature(HealthFeature.class).checks();
    }

    /** The per-worker control routes (control.camel.yaml's routeTemplate). */
    public WorkerControlRoutes controlRoutes() {
        return feature(ControlFeature.class).controlRoutes();
    }

    /** Tells every feature that the Camel context has started, in wiring order. */
    public void start(CamelContext context) {
        features.forEach(f -> f.start(context));
    }

    public PrometheusMeterRegistry meterRegistry() {
        return meterRegistry;
    }

    @Override
    public void close() {
        for (int i = features.size() - 1; i >= 0; i--) {
            try {
                features.get(i).close();
            } catch (RuntimeException e) {
                LOG.warn("Closing {} failed: {}", features.get(i).getClass().getSimpleName(), e.toString());
            }
        }
        http.stop();
        for (int i = enabled.size() - 1; i >= 0; i--) {
            try {
                enabled.get(i).close();
            } catch (RuntimeException e) {
                LOG.warn("Closing {} failed: {}", enabled.get(i).name(), e.toString());
            }
        }
        gcMetrics.close();
        if (ownsVertx) {
            vertx.close().toCompletionStage().toCompletableFuture().join();
            LOG.debug("Vert.x closed");
        }
    }
}
