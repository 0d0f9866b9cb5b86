package dev.caravan.policies;

/**
 * A worker's own health-check settings from {@code POST /workers} ({@code health_check_timeout_secs},
 * {@code health_check_interval_secs}, {@code health_success_threshold}, {@code health_failure_threshold},
 * {@code disable_health_check}). Each component is null when the registration did not set it, and the gateway's default
 * ({@code --health-check-*}) applies; the health checker merges the two.
 *
 * @param timeoutSecs      seconds a probe may take, or null
 * @param intervalSecs     seconds between probes of this worker, or null
 * @param successThreshold consecutive successful probes that make an unhealthy worker healthy, or null
 * @param failureThreshold consecutive failed probes that make a healthy worker unhealthy, or null
 * @param disabled         true: never probed and always healthy; null: the gateway's setting
 */
public record WorkerHealthCheck(Long timeoutSecs, Long intervalSecs, Integer successThreshold, Integer failureThreshold,
                                Boolean disabled) {

    /** Nothing set: every value comes from the gateway's flags. */
    public static final WorkerHealthCheck DEFAULTS = new WorkerHealthCheck(null, null, null, null, null);

    public WorkerHealthCheck {
        positive("health_check_timeout_secs", timeoutSecs);
        positive("health_check_interval_secs", intervalSecs);
        positive("health_success_threshold", successThreshold == null ? null : successThreshold.longValue());
        positive("health_failure_threshold", failureThreshold == null ? null : failureThreshold.longValue());
    }

    private static void positive(String name, Long value) {
        if (value != null && value < 1) {
            throw new IllegalArgumentException(name + " must be >= 1, was " + value);
        }
    }

    /** This worker's settings with every non-null component of {@code update} replacing its own. */
    public WorkerHealthCheck merge(WorkerHealthCheck update) {
        return new WorkerHealthCheck(
                update.timeoutSecs != null ? update.timeoutSecs : timeoutSecs,
                update.intervalSecs != null ? update.intervalSecs : intervalSecs,
                update.successThreshold != null ? update.successThreshold : successThreshold,
                update.failureThreshold != null ? update.failureThreshold : failureThreshold,
                update.disabled != null ? update.disabled : disabled);
    }
}
