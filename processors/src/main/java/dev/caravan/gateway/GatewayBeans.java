package dev.caravan.gateway;

import java.time.Duration;
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
import dev.caravan.processors.admin.AdminFeature;
import dev.caravan.processors.config.CoreFlags;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.control.ApplyEngineLoadsProcessor;
import dev.caravan.processors.control.CallWorkerProcessor;
import dev.caravan.processors.control.CheckControlAnswerProcessor;
import dev.caravan.processors.control.CollectControlResultsStrategy;
import dev.caravan.processors.control.ControlFeature;
import dev.caravan.processors.control.MergeModelsProcessor;
import dev.caravan.processors.control.ModelFromPathProcessor;
import dev.caravan.processors.control.PlanControlCallsProcessor.Scope;
import dev.caravan.processors.control.PlanControlCallsProcessor;
import dev.caravan.processors.control.PrepareControlCallProcessor;
import dev.caravan.processors.control.RecordControlFailureProcessor;
import dev.caravan.processors.control.RetrieveModelProcessor;
import dev.caravan.processors.control.RunMaintenanceProcessor;
import dev.caravan.processors.control.SummarizeFlushCacheProcessor;
import dev.caravan.processors.control.SummarizeLoadsProcessor;
import dev.caravan.processors.control.WorkerControlRoutes;
import dev.caravan.processors.admission.AdmissionController;
import dev.caravan.processors.engine.EngineApiFeature;
import dev.caravan.processors.feature.Feature;
import dev.caravan.processors.feature.MapWiring;
import dev.caravan.processors.feature.OptionalFeature;
import dev.caravan.processors.feature.Wiring;
import dev.caravan.processors.flow.FlowFeature;
import dev.caravan.processors.flow.TenantMetrics;
import dev.caravan.processors.tokens.TokensFeature;
import dev.caravan.processors.forward.ForwardFeature;
import dev.caravan.processors.forward.ForwardStreamProcessor;
import dev.caravan.processors.forward.UpstreamClient;
import dev.caravan.processors.health.GatewayHealthChecks;
import dev.caravan.processors.health.HealthFeature;
import dev.caravan.processors.metrics.GatewayMetrics;
import dev.caravan.processors.metrics.MetricsFeature;
import dev.caravan.processors.pd.PdFeature;
import dev.caravan.processors.quality.ShadowPolicies;
import dev.caravan.processors.kv.KvSettings;
import dev.caravan.processors.quality.QualityFeature;
import dev.caravan.processors.reliability.WorkerBreakers;
import dev.caravan.processors.request.RequestFeature;
import dev.caravan.processors.routing.PolicyRegistry;
import dev.caravan.processors.routing.RoutingFeature;
import dev.caravan.processors.routing.SelectWorkerProcessor;
import dev.caravan.processors.tls.TlsSettings;
import dev.caravan.processors.trace.TracingFeature;
import dev.caravan.processors.tuning.CamelTuning;

/**
 * The gateway's object graph, built from a {@link GatewayConfig}: the worker registry, per-model policies, metrics, the
 * upstream client, and every route step under the bean name the YAML routes reference ({@link #beans()}): the
 * features' own steps by wiring each feature ({@link Features}) at its place, the rest by {@link BeanNames}. The one
 * place that knows how the parts fit; nothing here depends on camel-main, so the same beans serve
 * {@code ./caravan run} and an application embedding the gateway ({@link CaravanGateway#install}).
 *
 * <p>Owns the Vert.x instance it creates (the ingress server's and the upstream client's) and the JVM metric binders;
 * {@link #close()} releases them after the Camel context has stopped.
 */
public final class GatewayBeans implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(GatewayBeans.class);

    /** Registry name of the Micrometer registry; camel-micrometer(-prometheus) looks it up by this name. */
    public static final String METRICS_REGISTRY = BeanNames.METRICS_REGISTRY;

    private final GatewayConfig config;
    private final Vertx vertx;
    private final boolean ownsVertx;
    private final PrometheusMeterRegistry meterRegistry;
    private final WorkerRegistry workers = new WorkerRegistry();
    private final PolicyRegistry policies;
    /** The --shadow-policies (none by default). */
    private final ShadowPolicies shadows;
    private final KvBeans kv;
    private final GatewayMetrics metrics;
    private final UpstreamClient upstream;
    private final CamelTuning tuning;
    private ReliabilityBeans reliability;
    private WorkerControlRoutes controlRoutes;
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
        this.kv = new KvBeans(config, workers, this.meterRegistry);
        PolicyEnvironment env = PolicyEnvironment.system().withKv(kv.groundTruth());
        boolean canonicalOrder = false;
        for (OptionalFeature feature : enabled) {
            env = feature.policyEnvironment(wiring, env);
            canonicalOrder |= feature.canonicalWorkerOrder();
        }
        PolicyEnvironment policyEnv = env;
        this.policies = new PolicyRegistry(workers, WorkerRole.REGULAR,
                model -> QualityFeature.withParityFallback(config, PolicyFactory.create(policyConfig, policyEnv),
                        policyEnv), canonicalOrder);
        this.shadows = QualityFeature.shadows(config, workers, kv.groundTruth(), canonicalOrder);
        this.metrics = new GatewayMetrics(this.meterRegistry, MetricsFeature.durationBuckets(config));
        TlsSettings tls = tls(config);
        this.http = new GatewayHttpServer(this.vertx, config.host(), config.port(), config.maxPayloadSize(),
                config.serverEventLoops(), metrics, tls::server,
                CorsPolicy.handler(config.getList(CoreFlags.CORS_ALLOWED_ORIGINS)));
        metrics.trackPolicies(policies);
        workers.addListener(metrics);
        this.tuning = CamelTuning.of(config.getBoolean(CoreFlags.CAMEL_TUNING));
        this.upstream = new UpstreamClient(this.vertx, config.getSeconds(ForwardFeature.CONNECT_TIMEOUT_SECS),
                config.requestTimeout(), config.getSeconds(ForwardFeature.STREAM_IDLE_TIMEOUT_SECS),
                config.getSeconds(ForwardFeature.NON_STREAM_ATTEMPT_TIMEOUT_SECS),
                config.getInt(ForwardFeature.MAX_CONNECTIONS_PER_WORKER), tls, config.serverEventLoops(),
                tuning.timers(this.vertx));
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

    /** The registries whose policies need housekeeping: the live ones and the shadows. */
    private List<PolicyRegistry> maintained() {
        List<PolicyRegistry> all = new java.util.ArrayList<>(List.of(policies));
        all.addAll(shadows.registries());
        return all;
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
        String apiKey = config.apiKey();
        // infrastructure: the gateway's own HTTP server (its router) and the caravan-http: component the routes use
        beans.put(BeanNames.METRICS_REGISTRY, meterRegistry);
        beans.put(GatewayHttpServer.ROUTER_NAME, http.router());
        beans.put(CaravanPlatformHttpEngine.COMPONENT_NAME,
                new CaravanPlatformHttpEngine(http, metrics, config.dispatchOnEventLoop(), tuning.messages())
                        .newComponent());
        beans.put(BeanNames.GATEWAY_CONFIG, config);
        beans.put(BeanNames.WORKER_REGISTRY, workers);
        beans.put(Wiring.POLICY_REGISTRY, policies);
        beans.put(BeanNames.GATEWAY_METRICS, metrics);
        beans.put(BeanNames.UPSTREAM_CLIENT, upstream);
        // request path (ingress.camel.yaml)
        feature(RequestFeature.class).wire(wiring);
        beans.put(RoutingFeature.SELECT_WORKER, new SelectWorkerProcessor(policies, metrics.andThen(kv.decisions())));
        // --decision-quality and --shadow-policies: measurePrefixes, scoreShadowPolicies (docs/observability.md)
        wiring.share(ShadowPolicies.class, shadows);
        feature(QualityFeature.class).wire(wiring);
        // breakers, retries, admission, health checks, admin key (docs/reliability.md)
        reliability = ReliabilityBeans.define(config, vertx, workers, meterRegistry, beans);
        // tenants: identity, per-tenant rate limits, reload (docs/configuration.md#tenants-and-flow-control)
        wiring.share(AdmissionController.class, reliability.admission());
        wiring.share(TenantMetrics.class, reliability.tenantMetrics());
        feature(FlowFeature.class).wire(wiring);
        // the engine's own prompt tokens (docs/tokens.md)
        feature(TokensFeature.class).wire(wiring);
        beans.put(ForwardFeature.FORWARD_STREAM, new ForwardStreamProcessor(upstream, config.decisionHeaders(),
                apiKey, reliability.attemptListener(), tuning.routeEnds(upstream.timers())));
        // admin API (admin.camel.yaml)
        feature(AdminFeature.class).wire(wiring);
        wiring.share(WorkerBreakers.class, reliability.breakers());
        wiring.share(KvSettings.class, kv.settings());
        wiring.share(GatewayHttpServer.class, http);
        feature(HealthFeature.class).wire(wiring);
        feature(MetricsFeature.class).wire(wiring);
        // control plane (control.camel.yaml, admin fan-outs)
        beans.put(BeanNames.PLAN_LIST_MODELS, new PlanControlCallsProcessor(workers, Scope.HEALTHY, "GET",
                List.of("/v1/models")));
        beans.put(BeanNames.PLAN_GET_LOADS, new PlanControlCallsProcessor(workers, Scope.ALL, "GET",
                List.of(ApplyEngineLoadsProcessor.GET_LOAD)));
        beans.put(BeanNames.PLAN_LOAD_POLL, new PlanControlCallsProcessor(workers, Scope.ALL, "GET",
                List.of(ApplyEngineLoadsProcessor.GET_LOAD, ApplyEngineLoadsProcessor.METRICS)));
        beans.put(BeanNames.PREPARE_CONTROL_CALL, new PrepareControlCallProcessor(apiKey));
        beans.put(BeanNames.CALL_WORKER, new CallWorkerProcessor(vertx,
                Duration.ofSeconds(config.getLong(ControlFeature.CONTROL_TIMEOUT_SECS)), tls(config)));
        beans.put(BeanNames.CHECK_CONTROL_ANSWER, new CheckControlAnswerProcessor());
        beans.put(BeanNames.RECORD_CONTROL_FAILURE, new RecordControlFailureProcessor());
        controlRoutes = new WorkerControlRoutes(reliability.breakers());
        workers.addListener(controlRoutes);
        beans.put(BeanNames.WORKER_CONTROL_ROUTES, controlRoutes);
        beans.put(BeanNames.COLLECT_CONTROL_RESULTS, new CollectControlResultsStrategy());
        beans.put(BeanNames.MERGE_MODELS, new MergeModelsProcessor(workers));
        beans.put(BeanNames.MODEL_FROM_PATH, new ModelFromPathProcessor());
        beans.put(BeanNames.RETRIEVE_MODEL, new RetrieveModelProcessor());
        beans.put(BeanNames.SUMMARIZE_LOADS, new SummarizeLoadsProcessor(workers));
        beans.put(BeanNames.APPLY_ENGINE_LOADS, new ApplyEngineLoadsProcessor(System::nanoTime));
        beans.put(BeanNames.RUN_MAINTENANCE, new RunMaintenanceProcessor(maintained(), System::nanoTime));
        // each engine's own API: engine type and ranks, engine paths, rank pin, flush, server/model info, Responses
        feature(EngineApiFeature.class).wire(wiring);
        // KV events (kv-events.camel.yaml): per-worker routes, block index, kv_aware's ground truth, tree calibration
        // (before the optional features: replica sync hands a joining replica a peer's block index)
        kv.define(policies, beans);
        // prefill/decode disaggregation (pd.camel.yaml); before the optional features, which hook its policy registries
        wiring.share(UpstreamClient.class, upstream);
        feature(PdFeature.class).wire(wiring);
        // POST /flush_cache: the flushed engines are forgotten in their role's pool
        beans.put(BeanNames.SUMMARIZE_FLUSH_CACHE, new SummarizeFlushCacheProcessor(workers, List.of(policies,
                (PolicyRegistry) beans.get(Wiring.PREFILL_POLICY_REGISTRY),
                (PolicyRegistry) beans.get(Wiring.DECODE_POLICY_REGISTRY))));
        // --enable-trace: the request span step, and the selection, attempt and P/D leg steps wrapped in spans
        feature(TracingFeature.class).wire(wiring);
        // the optional modules the configuration turns on, e.g. Kubernetes service discovery (discovery.camel.yaml)
        // with --service-discovery
        for (OptionalFeature feature : enabled) {
            feature.wire(wiring);
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
        long loadInterval = config.getLong(CoreFlags.LOAD_CHECK_INTERVAL);
        p.put("caravan.derived.load-monitor-enabled", Boolean.toString(loadInterval > 0));
        p.put("caravan.derived.load-monitor-period-ms", Long.toString(Math.max(1, loadInterval) * 1000));
        p.put("caravan.derived.control-timeout-ms",
                Long.toString(config.getLong(ControlFeature.CONTROL_TIMEOUT_SECS) * 1000));
        p.putAll(kv.properties());
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
     * The gateway's own HTTP server (a Camel service: {@link CaravanGateway#install} adds it to the context, which
     * starts it after the routes and stops it after they drained).
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
    public KvBeans kv() {
        return kv;
    }

    public GatewayMetrics metrics() {
        return metrics;
    }

    public ReliabilityBeans reliability() {
        return reliability;
    }

    /** Tenants, their rate limits and the tenants file's reloads. */
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
        return controlRoutes;
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
        controlRoutes.close();
        upstream.close();
        kv.close();
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
