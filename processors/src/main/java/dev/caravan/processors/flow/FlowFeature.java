package dev.caravan.processors.flow;

import static dev.caravan.processors.config.FlagType.INT;
import static dev.caravan.processors.config.FlagType.LONG;
import static dev.caravan.processors.config.FlagType.STRING;

import java.nio.file.Path;
import java.time.Clock;
import java.util.List;

import dev.caravan.processors.admission.AdmissionConfig;
import dev.caravan.processors.admission.AdmissionController;
import dev.caravan.processors.admission.AdmissionMetrics;
import dev.caravan.processors.admission.AdmitRequestProcessor;
import dev.caravan.processors.admission.GracefulShutdown;
import dev.caravan.processors.config.CaravanFlag;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.config.FlagRows;
import dev.caravan.processors.config.Sections;
import dev.caravan.processors.feature.Feature;
import dev.caravan.processors.feature.Wiring;
import dev.caravan.processors.tuning.CamelTuning;

/**
 * Flow control (docs/configuration.md#tenants-and-flow-control): admission (concurrency, queue, rate) and draining on
 * shutdown, and the tenants with their priorities and rate limits. Wires the admission controller (its queue serves by
 * class priority, then fair share) with its meters and the per-tenant ones ({@link TenantMetrics}), the drain on
 * shutdown ({@link GracefulShutdown}), the tenants in force ({@code --tenants-file}, read now — a bad file stops the
 * start — and reloaded by the {@code tenants-reload} route), the per-tenant rate limiter, and the steps
 * {@code identifyTenant}, {@code limitTenantRate}, {@code admitRequest} and {@code reloadTenants}. Shares the
 * {@link AdmissionController} (readiness fails while it drains).
 */
public final class FlowFeature implements Feature {

    // ---- bean names (ingress.camel.yaml, flow.camel.yaml) -----------------------------------------------------------

    public static final String IDENTIFY_TENANT = "identifyTenant";
    public static final String LIMIT_TENANT_RATE = "limitTenantRate";
    /** The tenants-reload timer route's step (flow.camel.yaml). */
    public static final String RELOAD_TENANTS = "reloadTenants";
    /** The tenants in force ({@link TenantDirectory}). */
    public static final String TENANT_DIRECTORY = "tenantDirectory";
    /** The per-tenant rate limiter, for replica sync's fleet-wide quotas. */
    public static final String TENANT_RATE_LIMITER = "tenantRateLimiter";
    /** The admission step: a slot, a place in the queue, or 429/408/503 (ingress.camel.yaml). */
    public static final String ADMIT_REQUEST = "admitRequest";
    /** The admission controller ({@link AdmissionController}). */
    public static final String ADMISSION_CONTROLLER = "admissionController";

    private static final FlagRows ROWS = new FlagRows();

    public static final CaravanFlag MAX_CONCURRENT_REQUESTS = ROWS.row("--max-concurrent-requests",
            "caravan.admission.max-concurrent-requests", INT, Sections.ADMISSION)
            .defaultValue(AdmissionConfig.DEFAULT_MAX_CONCURRENT).special("-1", "unlimited").min(1)
            .describe("Inference requests served at once (a slot is held until the response ends).");
    public static final CaravanFlag QUEUE_SIZE = ROWS.row("--queue-size", "caravan.admission.queue-size",
            INT, Sections.ADMISSION)
            .defaultValue(AdmissionConfig.DEFAULT_QUEUE_SIZE).min(0)
            .describe("Requests that may wait (FIFO) for a slot; beyond it 429. 0 = no queue. With --tenants-file the "
                    + "queue serves by class priority, then fair share by tokens.");
    public static final CaravanFlag QUEUE_TIMEOUT_SECS = ROWS.row("--queue-timeout-secs",
            "caravan.admission.queue-timeout-secs", LONG, Sections.ADMISSION)
            .defaultValue(AdmissionConfig.DEFAULT_QUEUE_TIMEOUT.toSeconds()).range(1, FlagRows.MAX_SECONDS)
            .describe("Seconds a request may wait in the queue; then 408.");
    public static final CaravanFlag RATE_LIMIT_TOKENS_PER_SECOND = ROWS.row("--rate-limit-tokens-per-second",
            "caravan.admission.rate-limit-tokens-per-second", INT, Sections.ADMISSION)
            .defaultValue(AdmissionConfig.DEFAULT_RATE_PER_SECOND).special("-1", "off").min(1)
            .sglangDefault("{{caravan.admission.max-concurrent-requests}}", "SGLang refills its concurrency token "
                    + "bucket at --max-concurrent-requests per second; Caravan keeps the admission rate a separate "
                    + "choice, since with slots returned at the end of each request the refill only bites under "
                    + "bursts of short requests")
            .differs("off unless set; SGLang refills its concurrency token bucket at --max-concurrent-requests per "
                    + "second when unset, which with slots returned at the end of each request only matters under a "
                    + "burst of short requests")
            .describe("New inference requests admitted per second (bursts up to one second's worth); over it 429. Off "
                    + "by default (SGLang defaults it to --max-concurrent-requests).");
    public static final CaravanFlag TENANTS_FILE = ROWS.row("--tenants-file", "caravan.tenants.file",
            STRING, Sections.TENANTS)
            .describe("YAML or JSON file of tenants (API keys, priority classes, per-minute limits on requests, input "
                    + "and output tokens), reloaded when it changes; unset: one FIFO for everyone. Example: "
                    + "config/examples/tenants.yaml.");
    public static final CaravanFlag TENANTS_RELOAD_INTERVAL_SECS = ROWS.row("--tenants-reload-interval-secs",
            "caravan.tenants.reload-interval-secs", LONG, Sections.TENANTS)
            .defaultValue(TenantDirectory.DEFAULT_RELOAD_INTERVAL.toSeconds()).range(1, FlagRows.MAX_SECONDS)
            .describe("How often the tenants file's modification time is checked; a changed file is read again, and "
                    + "one that does not parse is logged and counted while the tenants before stay in force.");
    public static final CaravanFlag SHUTDOWN_GRACE_PERIOD_SECS = ROWS.row("--shutdown-grace-period-secs",
            "caravan.shutdown-grace-period-secs", LONG, Sections.LIFECYCLE)
            .defaultValue(GatewayConfig.DEFAULT_SHUTDOWN_GRACE_PERIOD_SECS).range(0, FlagRows.MAX_SECONDS)
            .describe("On SIGTERM/SIGINT: new inference requests get 503 and readiness fails at once; in-flight "
                    + "requests get this many seconds to finish before the gateway stops.");

    private TenantDirectory directory;
    private TenantRateLimiter limiter;
    private AdmissionController admission;
    private GracefulShutdown shutdown;

    @Override
    public List<CaravanFlag> flags() {
        return ROWS.all();
    }

    /** @throws IllegalArgumentException naming the tenants file and what is wrong with it */
    @Override
    public void wire(Wiring w) {
        GatewayConfig config = w.config();
        AdmissionMetrics admissionMetrics = new AdmissionMetrics(w.meters());
        TenantMetrics metrics = new TenantMetrics(w.meters());
        admission = new AdmissionController(admissionConfig(config), w.shared(CamelTuning.class).timers(w.vertx()),
                System::nanoTime, admissionMetrics.andThen(metrics));
        admissionMetrics.track(w.meters(), admission);
        shutdown = new GracefulShutdown(admission, config.getSeconds(SHUTDOWN_GRACE_PERIOD_SECS));
        w.bind(ADMISSION_CONTROLLER, admission);
        w.bind(ADMIT_REQUEST, new AdmitRequestProcessor(admission));
        w.share(AdmissionController.class, admission);
        boolean enabled = config.isSet(TENANTS_FILE);
        directory = enabled ? TenantDirectory.load(Path.of(config.get(TENANTS_FILE)), metrics) : TenantDirectory.none();
        metrics.configured(directory.current());
        limiter = new TenantRateLimiter(Clock.systemUTC());
        w.bind(IDENTIFY_TENANT, new IdentifyTenantProcessor(directory));
        w.bind(LIMIT_TENANT_RATE, new LimitTenantRateProcessor(limiter, admission, metrics));
        w.bind(RELOAD_TENANTS, new ReloadTenantsProcessor(directory));
        w.bind(TENANT_DIRECTORY, directory);
        w.bind(TENANT_RATE_LIMITER, limiter);
        w.property("caravan.derived.tenants-reload-enabled", Boolean.toString(enabled));
        w.property("caravan.derived.tenants-reload-period-ms",
                Long.toString(config.getLong(TENANTS_RELOAD_INTERVAL_SECS) * 1000));
    }

    /** The admission settings from the flag table. */
    public static AdmissionConfig admissionConfig(GatewayConfig config) {
        return new AdmissionConfig(config.getInt(MAX_CONCURRENT_REQUESTS), config.getInt(QUEUE_SIZE),
                config.getSeconds(QUEUE_TIMEOUT_SECS), config.getInt(RATE_LIMIT_TOKENS_PER_SECOND));
    }

    /** The admission controller; null before {@link #wire}. */
    public AdmissionController admission() {
        return admission;
    }

    /** The drain on shutdown (new requests refused, in-flight ones waited for); null before {@link #wire}. */
    public GracefulShutdown shutdown() {
        return shutdown;
    }

    /** The tenants in force; null before {@link #wire}. */
    public TenantDirectory directory() {
        return directory;
    }

    /** The per-tenant rate limiter; null before {@link #wire}. */
    public TenantRateLimiter limiter() {
        return limiter;
    }
}
