package dev.caravan.processors.health;

import static dev.caravan.processors.config.FlagType.INT;
import static dev.caravan.processors.config.FlagType.LONG;
import static dev.caravan.processors.config.FlagType.STRING;
import static dev.caravan.processors.config.FlagType.SWITCH;

import java.util.List;

import dev.caravan.processors.admission.AdmissionController;
import dev.caravan.processors.config.CaravanFlag;
import dev.caravan.processors.config.FlagRows;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.config.Sections;
import dev.caravan.processors.feature.Feature;
import dev.caravan.processors.feature.Wiring;
import dev.caravan.components.http.GatewayHttpServer;
import dev.caravan.processors.kv.KvSettings;
import dev.caravan.processors.reliability.WorkerBreakers;
import dev.caravan.processors.tls.TlsSettings;
import dev.caravan.processors.tokens.ChatTokensCheck;

/**
 * Health (docs/reliability.md): the probes of every worker, and the gateway's own readiness and liveness. Wires the
 * health checker ({@link HealthChecker}, a worker listener fed by the {@code health-check} timer route's steps
 * {@code planHealthChecks}, {@code probeWorkers} and {@code applyHealthResults}), the {@code /health_generate} steps
 * ({@code planHealthGenerate}, {@code summarizeHealthGenerate}), the readiness and liveness checks
 * ({@link GatewayHealthChecks}, which the gateway registers with the Camel context's health-check registry) and the
 * steps that serve them ({@code checkReadiness}, {@code checkLiveness}), built on the shared breakers, admission
 * controller, KV settings, TLS material and HTTP server; {@link #close} stops the event-loop heartbeats.
 */
public final class HealthFeature implements Feature {

    public static final String CHECK_READINESS = "checkReadiness";
    public static final String CHECK_LIVENESS = "checkLiveness";
    /** The gateway's checks in Camel's health-check registry ({@link GatewayHealthChecks}). */
    public static final String GATEWAY_HEALTH_CHECKS = "gatewayHealthChecks";
    /** The workers' probe states ({@link HealthChecker}). */
    public static final String HEALTH_CHECKER = "healthChecker";
    public static final String PLAN_HEALTH_CHECKS = "planHealthChecks";
    public static final String PROBE_WORKERS = "probeWorkers";
    public static final String APPLY_HEALTH_RESULTS = "applyHealthResults";
    /** {@code GET /health_generate}: a short generation on every healthy worker (admin.camel.yaml). */
    public static final String PLAN_HEALTH_GENERATE = "planHealthGenerate";
    public static final String SUMMARIZE_HEALTH_GENERATE = "summarizeHealthGenerate";

    private static final FlagRows ROWS = new FlagRows();

    public static final CaravanFlag HEALTH_CHECK_INTERVAL_SECS = ROWS.row("--health-check-interval-secs",
            "caravan.health.interval-secs", LONG, Sections.HEALTH)
            .defaultValue(HealthConfig.DEFAULT_INTERVAL.toSeconds()).range(1, FlagRows.MAX_SECONDS)
            .describe("Seconds between probes of each worker (a worker's health_check_interval_secs overrides it).");
    public static final CaravanFlag HEALTH_CHECK_TIMEOUT_SECS = ROWS.row("--health-check-timeout-secs",
            "caravan.health.timeout-secs", LONG, Sections.HEALTH)
            .defaultValue(HealthConfig.DEFAULT_TIMEOUT.toSeconds()).range(1, FlagRows.MAX_SECONDS)
            .describe("A probe that takes longer than this many seconds fails (per worker: "
                    + "health_check_timeout_secs).");
    public static final CaravanFlag HEALTH_CHECK_ENDPOINT = ROWS.row("--health-check-endpoint", "caravan.health.endpoint",
            STRING, Sections.HEALTH)
            .defaultValue(HealthConfig.DEFAULT_ENDPOINT).pattern("/\\S*", "a path starting with /")
            .describe("Path each worker is probed on with GET; 2xx = success.");
    public static final CaravanFlag HEALTH_FAILURE_THRESHOLD = ROWS.row("--health-failure-threshold",
            "caravan.health.failure-threshold", INT, Sections.HEALTH)
            .defaultValue(HealthConfig.DEFAULT_FAILURE_THRESHOLD).min(1)
            .describe("Consecutive failed probes that mark a healthy worker unhealthy (per worker: "
                    + "health_failure_threshold).");
    public static final CaravanFlag HEALTH_SUCCESS_THRESHOLD = ROWS.row("--health-success-threshold",
            "caravan.health.success-threshold", INT, Sections.HEALTH)
            .defaultValue(HealthConfig.DEFAULT_SUCCESS_THRESHOLD).min(1)
            .describe("Consecutive successful probes that mark an unhealthy worker healthy again (per worker: "
                    + "health_success_threshold).");
    public static final CaravanFlag DISABLE_HEALTH_CHECK = ROWS.row("--disable-health-check", "caravan.health.disabled",
            SWITCH, Sections.HEALTH)
            .defaultValue(false)
            .describe("Never probe workers; they stay healthy (per worker: disable_health_check).");
    public static final CaravanFlag EVENT_LOOP_STALL_SECS = ROWS.row("--event-loop-stall-secs",
            "caravan.health.event-loop-stall-secs", LONG, Sections.HEALTH)
            .defaultValue(EventLoopsHealthCheck.DEFAULT_STALL_LIMIT.toSeconds()).range(2, FlagRows.MAX_SECONDS)
            .describe("/liveness (Camel's liveness check caravan-event-loops) fails when one of the gateway's event "
                    + "loops has not run its once-a-second heartbeat for this many seconds.");

    private GatewayHealthChecks checks;
    private EventLoopHeartbeat heartbeat;

    @Override
    public List<CaravanFlag> flags() {
        return ROWS.all();
    }

    @Override
    public void wire(Wiring w) {
        HealthChecker health = new HealthChecker(healthConfig(w.config()), System::nanoTime);
        health.addObserver(new HealthMetrics(w.meters()));
        w.workers().addListener(health);
        w.bind(HEALTH_CHECKER, health);
        w.bind(PLAN_HEALTH_CHECKS, new PlanHealthChecksProcessor(health));
        w.bind(PROBE_WORKERS, new ProbeWorkersProcessor(w.vertx(), w.config().apiKey(), w.shared(TlsSettings.class)));
        w.bind(APPLY_HEALTH_RESULTS, new ApplyHealthResultsProcessor(health));
        w.bind(PLAN_HEALTH_GENERATE, new PlanHealthGenerateProcessor(w.workers()));
        w.bind(SUMMARIZE_HEALTH_GENERATE, new SummarizeHealthGenerateProcessor());
        heartbeat = new EventLoopHeartbeat(w.vertx().nettyEventLoopGroup(), EventLoopHeartbeat.DEFAULT_PERIOD,
                System::nanoTime);
        boolean prefillDecode = w.prefillDecode();
        checks = new GatewayHealthChecks(List.of(
                new WorkersHealthCheck(w.workers(), () -> prefillDecode, w.shared(WorkerBreakers.class)),
                new KvSubscriptionsHealthCheck(w.workers(), w.shared(KvSettings.class)),
                new ListenerHealthCheck(w.shared(GatewayHttpServer.class),
                        w.shared(AdmissionController.class)::draining),
                new EventLoopsHealthCheck(heartbeat, w.config().getSeconds(EVENT_LOOP_STALL_SECS)),
                new ChatTokensHealthCheck(w.shared(ChatTokensCheck.class))));
        w.bind(GATEWAY_HEALTH_CHECKS, checks);
        w.bind(CHECK_READINESS, new ReportHealthProcessor(checks, true));
        w.bind(CHECK_LIVENESS, new ReportHealthProcessor(checks, false));
    }

    /** The probe settings from the flag table. */
    public static HealthConfig healthConfig(GatewayConfig config) {
        return new HealthConfig(config.getSeconds(HEALTH_CHECK_INTERVAL_SECS),
                config.getSeconds(HEALTH_CHECK_TIMEOUT_SECS), config.get(HEALTH_CHECK_ENDPOINT),
                config.getInt(HEALTH_FAILURE_THRESHOLD), config.getInt(HEALTH_SUCCESS_THRESHOLD),
                config.getBoolean(DISABLE_HEALTH_CHECK));
    }

    /** The checks behind /readiness and /liveness; null before {@link #wire}. */
    public GatewayHealthChecks checks() {
        return checks;
    }

    @Override
    public void close() {
        if (heartbeat != null) {
            heartbeat.close();
        }
    }
}
