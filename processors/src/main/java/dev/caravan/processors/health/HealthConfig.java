package dev.caravan.processors.health;

import java.time.Duration;

import dev.caravan.policies.WorkerHealthCheck;

/**
 * Health-check settings: the gateway's ({@code --health-check-*}, SGLang's router defaults, docs/design/upstream.md,
 * "SGLang: router defaults") or one worker's after merging its own {@link WorkerHealthCheck} from
 * {@code POST /workers} ({@link #forWorker}).
 *
 * @param interval         time between probes of a worker ({@code --health-check-interval-secs}, 60 s)
 * @param timeout          a probe that takes longer fails ({@code --health-check-timeout-secs}, 5 s)
 * @param endpoint         path probed with GET, 2xx = success ({@code --health-check-endpoint}, {@code /health})
 * @param failureThreshold consecutive failures that make a healthy worker unhealthy ({@code --health-failure-threshold}, 3)
 * @param successThreshold consecutive successes that make an unhealthy worker healthy
 *                         ({@code --health-success-threshold}, 2)
 * @param disabled         never probe; workers stay healthy ({@code --disable-health-check})
 */
public record HealthConfig(Duration interval, Duration timeout, String endpoint, int failureThreshold,
                           int successThreshold, boolean disabled) {

    public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(60);
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);
    public static final String DEFAULT_ENDPOINT = "/health";
    public static final int DEFAULT_FAILURE_THRESHOLD = 3;
    public static final int DEFAULT_SUCCESS_THRESHOLD = 2;

    public HealthConfig {
        if (interval == null || interval.toMillis() < 1) {
            throw new IllegalArgumentException("health interval must be positive, was " + interval);
        }
        if (timeout == null || timeout.toMillis() < 1) {
            throw new IllegalArgumentException("health timeout must be positive, was " + timeout);
        }
        if (endpoint == null || !endpoint.startsWith("/")) {
            throw new IllegalArgumentException("health endpoint must start with /, was '" + endpoint + "'");
        }
        if (failureThreshold < 1) {
            throw new IllegalArgumentException("health failureThreshold must be >= 1, was " + failureThreshold);
        }
        if (successThreshold < 1) {
            throw new IllegalArgumentException("health successThreshold must be >= 1, was " + successThreshold);
        }
    }

    public static HealthConfig defaults() {
        return new HealthConfig(DEFAULT_INTERVAL, DEFAULT_TIMEOUT, DEFAULT_ENDPOINT, DEFAULT_FAILURE_THRESHOLD,
                DEFAULT_SUCCESS_THRESHOLD, false);
    }

    /** These settings with a worker's own values in place of the gateway's. */
    public HealthConfig forWorker(WorkerHealthCheck own) {
        return new HealthConfig(
                own.intervalSecs() != null ? Duration.ofSeconds(own.intervalSecs()) : interval,
                own.timeoutSecs() != null ? Duration.ofSeconds(own.timeoutSecs()) : timeout,
                endpoint,
                own.failureThreshold() != null ? own.failureThreshold() : failureThreshold,
                own.successThreshold() != null ? own.successThreshold() : successThreshold,
                own.disabled() != null ? own.disabled() : disabled);
    }
}
