package dev.caravan.gateway;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Vertx;

import dev.caravan.processors.config.CoreFlags;
import dev.caravan.policies.WorkerRegistry;
import dev.caravan.processors.admission.AdmissionConfig;
import dev.caravan.processors.admission.AdmissionController;
import dev.caravan.processors.admission.AdmissionMetrics;
import dev.caravan.processors.admission.AdmitRequestProcessor;
import dev.caravan.processors.admission.GracefulShutdown;
import dev.caravan.processors.auth.CheckAdminKeyProcessor;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.flow.FlowFeature;
import dev.caravan.processors.flow.TenantMetrics;
import dev.caravan.processors.forward.ForwardAttemptListener;
import dev.caravan.processors.health.ApplyHealthResultsProcessor;
import dev.caravan.processors.health.HealthChecker;
import dev.caravan.processors.health.HealthConfig;
import dev.caravan.processors.health.HealthFeature;
import dev.caravan.processors.health.HealthMetrics;
import dev.caravan.processors.health.PlanHealthChecksProcessor;
import dev.caravan.processors.health.PlanHealthGenerateProcessor;
import dev.caravan.processors.health.ProbeWorkersProcessor;
import dev.caravan.processors.health.SummarizeHealthGenerateProcessor;
import dev.caravan.processors.reliability.AttemptOutcome;
import dev.caravan.processors.reliability.AwaitBackoffProcessor;
import dev.caravan.processors.reliability.BeginAttemptsProcessor;
import dev.caravan.processors.reliability.BreakerConfig;
import dev.caravan.processors.reliability.DecideRetryProcessor;
import dev.caravan.processors.reliability.ReliabilityFeature;
import dev.caravan.processors.time.DelayScheduler;
import dev.caravan.processors.tuning.CamelTuning;
import dev.caravan.processors.reliability.ReliabilityMetrics;
import dev.caravan.processors.reliability.RetryConfig;
import dev.caravan.processors.reliability.WorkerBreakers;

/**
 * The reliability part of the gateway (docs/reliability.md): per-worker circuit breakers, retries, admission control
 * and draining, health checks, the admin key — the configs read from the flag table, the shared objects, and the beans
 * the YAML routes reference ({@code admitRequest}, {@code beginAttempts}, {@code decideRetry}, {@code awaitBackoff},
 * {@code planHealthChecks}, {@code probeWorkers}, {@code applyHealthResults},
 * {@code planHealthGenerate}, {@code summarizeHealthGenerate}, {@code checkAdminKey}). Built once by
 * {@link GatewayBeans}; registers its worker listeners on the registry before any worker is added.
 */
public final class ReliabilityBeans {

    private final WorkerBreakers breakers;
    private final ReliabilityMetrics metrics;
    private final AdmissionController admission;
    private final GracefulShutdown shutdown;
    private final HealthChecker health;
    private final TenantMetrics tenantMetrics;

    private ReliabilityBeans(WorkerBreakers breakers, ReliabilityMetrics metrics, AdmissionController admission,
                             GracefulShutdown shutdown, HealthChecker health, TenantMetrics tenantMetrics) {
        this.tenantMetrics = tenantMetrics;
        this.breakers = breakers;
        this.metrics = metrics;
        this.admission = admission;
        this.shutdown = shutdown;
        this.health = health;
    }

    /**
     * Builds the reliability objects, adds their beans to {@code beans}, and registers their listeners on
     * {@code workers}.
     *
     * @throws IllegalArgumentException naming the setting, for inconsistent values
     */
    static ReliabilityBeans define(GatewayConfig config, Vertx vertx, WorkerRegistry workers, MeterRegistry meters,
                                  Map<String, Object> beans) {
        WorkerBreakers breakers = new WorkerBreakers(breakerConfig(config), Clock.systemUTC());
        ReliabilityMetrics metrics = new ReliabilityMetrics(meters, breakers);
        breakers.addObserver(metrics);
        workers.addListener(breakers);
        workers.addListener(metrics);
        RetryConfig retry = retryConfig(config);
        DelayScheduler timers = CamelTuning.of(config.getBoolean(CoreFlags.CAMEL_TUNING)).timers(vertx);
        beans.put(BeanNames.WORKER_BREAKERS, breakers);
        beans.put(BeanNames.BEGIN_ATTEMPTS, new BeginAttemptsProcessor(retry));
        beans.put(BeanNames.DECIDE_RETRY, new DecideRetryProcessor(retry, ThreadLocalRandom::current, metrics));
        beans.put(BeanNames.AWAIT_BACKOFF, new AwaitBackoffProcessor(timers));

        AdmissionMetrics admissionMetrics = new AdmissionMetrics(meters);
        TenantMetrics tenantMetrics = new TenantMetrics(meters);
        AdmissionController admission = new AdmissionController(admissionConfig(config), timers, System::nanoTime,
                admissionMetrics.andThen(tenantMetrics));
        admissionMetrics.track(meters, admission);
        GracefulShutdown shutdown = new GracefulShutdown(admission,
                config.getSeconds(FlowFeature.SHUTDOWN_GRACE_PERIOD_SECS));
        beans.put(BeanNames.ADMISSION_CONTROLLER, admission);
        beans.put(BeanNames.ADMIT_REQUEST, new AdmitRequestProcessor(admission));

        HealthChecker health = new HealthChecker(healthConfig(config), System::nanoTime);
        health.addObserver(new HealthMetrics(meters));
        workers.addListener(health);
        beans.put(BeanNames.HEALTH_CHECKER, health);
        beans.put(BeanNames.PLAN_HEALTH_CHECKS, new PlanHealthChecksProcessor(health));
        beans.put(BeanNames.PROBE_WORKERS, new ProbeWorkersProcessor(vertx, config.apiKey(), GatewayBeans.tls(config)));
        beans.put(BeanNames.APPLY_HEALTH_RESULTS, new ApplyHealthResultsProcessor(health));
        beans.put(BeanNames.PLAN_HEALTH_GENERATE, new PlanHealthGenerateProcessor(workers));
        beans.put(BeanNames.SUMMARIZE_HEALTH_GENERATE, new SummarizeHealthGenerateProcessor());

        beans.put(BeanNames.CHECK_ADMIN_KEY, new CheckAdminKeyProcessor(config.adminApiKey(), config.apiKey()));
        return new ReliabilityBeans(breakers, metrics, admission, shutdown, health, tenantMetrics);
    }

    static BreakerConfig breakerConfig(GatewayConfig config) {
        return new BreakerConfig(!config.getBoolean(ReliabilityFeature.DISABLE_CIRCUIT_BREAKER),
                config.getInt(ReliabilityFeature.CB_FAILURE_THRESHOLD), config.getInt(ReliabilityFeature.CB_SUCCESS_THRESHOLD),
                config.getSeconds(ReliabilityFeature.CB_TIMEOUT_DURATION_SECS));
    }

    static RetryConfig retryConfig(GatewayConfig config) {
        return new RetryConfig(config.getBoolean(ReliabilityFeature.DISABLE_RETRIES) ? 1
                : config.getInt(ReliabilityFeature.RETRY_MAX_RETRIES),
                Duration.ofMillis(config.getLong(ReliabilityFeature.RETRY_INITIAL_BACKOFF_MS)),
                Duration.ofMillis(config.getLong(ReliabilityFeature.RETRY_MAX_BACKOFF_MS)),
                config.getDouble(ReliabilityFeature.RETRY_BACKOFF_MULTIPLIER),
                config.getDouble(ReliabilityFeature.RETRY_JITTER_FACTOR));
    }

    static AdmissionConfig admissionConfig(GatewayConfig config) {
        return new AdmissionConfig(config.getInt(FlowFeature.MAX_CONCURRENT_REQUESTS),
                config.getInt(FlowFeature.QUEUE_SIZE), config.getSeconds(FlowFeature.QUEUE_TIMEOUT_SECS),
                config.getInt(FlowFeature.RATE_LIMIT_TOKENS_PER_SECOND));
    }

    static HealthConfig healthConfig(GatewayConfig config) {
        return new HealthConfig(config.getSeconds(HealthFeature.HEALTH_CHECK_INTERVAL_SECS),
                config.getSeconds(HealthFeature.HEALTH_CHECK_TIMEOUT_SECS), config.get(HealthFeature.HEALTH_CHECK_ENDPOINT),
                config.getInt(HealthFeature.HEALTH_FAILURE_THRESHOLD), config.getInt(HealthFeature.HEALTH_SUCCESS_THRESHOLD),
                config.getBoolean(HealthFeature.DISABLE_HEALTH_CHECK));
    }

    /** Feeds every forward attempt's end to the breakers. */
    public ForwardAttemptListener attemptListener() {
        return (worker, outcome, status) -> breakers.record(worker, AttemptOutcome.classify(outcome, status));
    }

    public WorkerBreakers breakers() {
        return breakers;
    }

    public ReliabilityMetrics metrics() {
        return metrics;
    }

    /** Per-tenant admission meters (also told about tenant throttling and reloads by the flow feature). */
    public TenantMetrics tenantMetrics() {
        return tenantMetrics;
    }

    public AdmissionController admission() {
        return admission;
    }

    public GracefulShutdown shutdown() {
        return shutdown;
    }

    public HealthChecker health() {
        return health;
    }
}
