package dev.caravan.processors.reliability;

import static dev.caravan.processors.config.FlagType.DOUBLE;
import static dev.caravan.processors.config.FlagType.INT;
import static dev.caravan.processors.config.FlagType.LONG;
import static dev.caravan.processors.config.FlagType.SWITCH;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

import dev.caravan.processors.config.CaravanFlag;
import dev.caravan.processors.config.FlagRows;
import dev.caravan.processors.config.GatewayConfig;
import dev.caravan.processors.config.Sections;
import dev.caravan.processors.feature.Feature;
import dev.caravan.processors.feature.Wiring;
import dev.caravan.processors.forward.ForwardAttemptListener;
import dev.caravan.processors.tuning.CamelTuning;

/**
 * Reliability of the calls to workers (docs/reliability.md): per-worker circuit breakers and retries. Wires the
 * breakers ({@link WorkerBreakers}, a worker listener, bound for the control routes' tooling and shared for the
 * features that record into them or read them), the attempt loop's steps {@code beginAttempts}, {@code decideRetry}
 * and {@code awaitBackoff} (ingress.camel.yaml), and shares the {@link ForwardAttemptListener} that feeds every
 * forward attempt's end to the breakers.
 */
public final class ReliabilityFeature implements Feature {

    // ---- bean names (ingress.camel.yaml) ----------------------------------------------------------------------------

    public static final String BEGIN_ATTEMPTS = "beginAttempts";
    public static final String DECIDE_RETRY = "decideRetry";
    public static final String AWAIT_BACKOFF = "awaitBackoff";
    /** The per-worker breakers ({@link WorkerBreakers}). */
    public static final String WORKER_BREAKERS = "workerBreakers";

    private static final FlagRows ROWS = new FlagRows();

    public static final CaravanFlag CB_FAILURE_THRESHOLD = ROWS.row("--cb-failure-threshold", "caravan.cb.failure-threshold",
            INT, Sections.BREAKER)
            .defaultValue(BreakerConfig.DEFAULT_FAILURE_THRESHOLD).min(1)
            .describe("Consecutive failed attempts (5xx except 503, connection failures, timeouts; never 4xx or "
                    + "client hang-ups) that open a worker's breaker and take it out of routing.");
    public static final CaravanFlag CB_SUCCESS_THRESHOLD = ROWS.row("--cb-success-threshold", "caravan.cb.success-threshold",
            INT, Sections.BREAKER)
            .defaultValue(BreakerConfig.DEFAULT_SUCCESS_THRESHOLD).min(1)
            .describe("Consecutive successes that close a half-open breaker (any failure while half-open reopens it).");
    public static final CaravanFlag CB_TIMEOUT_DURATION_SECS = ROWS.row("--cb-timeout-duration-secs",
            "caravan.cb.timeout-duration-secs", LONG, Sections.BREAKER)
            .defaultValue(BreakerConfig.DEFAULT_OPEN_TIMEOUT.toSeconds()).range(1, FlagRows.MAX_SECONDS)
            .describe("Seconds an open breaker keeps its worker out before letting requests through again "
                    + "(half-open).");
    public static final CaravanFlag CB_WINDOW_DURATION_SECS = ROWS.row("--cb-window-duration-secs",
            "caravan.cb.window-duration-secs", LONG, Sections.BREAKER)
            .defaultValue(BreakerConfig.DEFAULT_WINDOW_SECS)
            .describe("Accepted for SGLang compatibility and unused, as in SGLang (failures count consecutively, not "
                    + "per window).");
    public static final CaravanFlag DISABLE_CIRCUIT_BREAKER = ROWS.row("--disable-circuit-breaker", "caravan.cb.disabled",
            SWITCH, Sections.BREAKER)
            .defaultValue(false)
            .describe("Breakers never open.");
    public static final CaravanFlag RETRY_MAX_RETRIES = ROWS.row("--retry-max-retries", "caravan.retry.max-retries",
            INT, Sections.RETRY)
            .defaultValue(RetryConfig.DEFAULT_MAX_ATTEMPTS).range(1, 100)
            .describe("Total attempts per request, the first included (SGLang's meaning). Retried before any byte "
                    + "reached the client: connection failures, idle timeouts and 408/429/500/502/503/504, each on a "
                    + "newly selected worker (not one that already failed the request while another is available).");
    public static final CaravanFlag RETRY_INITIAL_BACKOFF_MS = ROWS.row("--retry-initial-backoff-ms",
            "caravan.retry.initial-backoff-ms", LONG, Sections.RETRY)
            .defaultValue(RetryConfig.DEFAULT_INITIAL_BACKOFF.toMillis()).range(0, FlagRows.MAX_MILLIS)
            .describe("Milliseconds before the first retry.");
    public static final CaravanFlag RETRY_MAX_BACKOFF_MS = ROWS.row("--retry-max-backoff-ms", "caravan.retry.max-backoff-ms",
            LONG, Sections.RETRY)
            .defaultValue(RetryConfig.DEFAULT_MAX_BACKOFF.toMillis()).range(0, FlagRows.MAX_MILLIS)
            .describe("Cap on the delay between attempts, in ms.");
    public static final CaravanFlag RETRY_BACKOFF_MULTIPLIER = ROWS.row("--retry-backoff-multiplier",
            "caravan.retry.backoff-multiplier", DOUBLE, Sections.RETRY)
            .defaultValue(RetryConfig.DEFAULT_MULTIPLIER).min(1.0)
            .describe("Growth of the delay per retry: initial x multiplier^k, capped.");
    public static final CaravanFlag RETRY_JITTER_FACTOR = ROWS.row("--retry-jitter-factor", "caravan.retry.jitter-factor",
            DOUBLE, Sections.RETRY)
            .defaultValue(RetryConfig.DEFAULT_JITTER_FACTOR).range(0.0, 1.0)
            .describe("Each delay is multiplied by a uniform factor in [1-j, 1+j].");
    public static final CaravanFlag DISABLE_RETRIES = ROWS.row("--disable-retries", "caravan.retry.disabled",
            SWITCH, Sections.RETRY)
            .defaultValue(false)
            .describe("One attempt per request.");

    private WorkerBreakers breakers;

    @Override
    public List<CaravanFlag> flags() {
        return ROWS.all();
    }

    @Override
    public void wire(Wiring w) {
        GatewayConfig config = w.config();
        breakers = new WorkerBreakers(breakerConfig(config), Clock.systemUTC());
        ReliabilityMetrics metrics = new ReliabilityMetrics(w.meters(), breakers);
        breakers.addObserver(metrics);
        w.workers().addListener(breakers);
        w.workers().addListener(metrics);
        RetryConfig retry = retryConfig(config);
        w.bind(WORKER_BREAKERS, breakers);
        w.bind(BEGIN_ATTEMPTS, new BeginAttemptsProcessor(retry));
        w.bind(DECIDE_RETRY, new DecideRetryProcessor(retry, ThreadLocalRandom::current, metrics));
        w.bind(AWAIT_BACKOFF, new AwaitBackoffProcessor(w.shared(CamelTuning.class).timers(w.vertx())));
        w.share(WorkerBreakers.class, breakers);
        WorkerBreakers recorded = breakers;
        w.share(ForwardAttemptListener.class,
                (worker, outcome, status) -> recorded.record(worker, AttemptOutcome.classify(outcome, status)));
    }

    /** The per-worker breakers; null before {@link #wire}. */
    public WorkerBreakers breakers() {
        return breakers;
    }

    /** The breaker settings from the flag table. */
    public static BreakerConfig breakerConfig(GatewayConfig config) {
        return new BreakerConfig(!config.getBoolean(DISABLE_CIRCUIT_BREAKER), config.getInt(CB_FAILURE_THRESHOLD),
                config.getInt(CB_SUCCESS_THRESHOLD), config.getSeconds(CB_TIMEOUT_DURATION_SECS));
    }

    /**
     * The retry settings from the flag table ({@code --disable-retries}: one attempt).
     *
     * @throws IllegalArgumentException when the initial backoff exceeds the maximum
     */
    public static RetryConfig retryConfig(GatewayConfig config) {
        return new RetryConfig(config.getBoolean(DISABLE_RETRIES) ? 1 : config.getInt(RETRY_MAX_RETRIES),
                Duration.ofMillis(config.getLong(RETRY_INITIAL_BACKOFF_MS)),
                Duration.ofMillis(config.getLong(RETRY_MAX_BACKOFF_MS)),
                config.getDouble(RETRY_BACKOFF_MULTIPLIER), config.getDouble(RETRY_JITTER_FACTOR));
    }
}
