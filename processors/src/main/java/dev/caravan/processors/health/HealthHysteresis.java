package dev.caravan.processors.health;

/**
 * SGLang's health hysteresis for one worker, as a pure state machine (worker.rs:703-752): a success resets the failure
 * count and a failure the success count; a healthy worker turns unhealthy after {@code failureThreshold} consecutive
 * failures, an unhealthy one healthy after {@code successThreshold} consecutive successes; both counts reset on a flip.
 * So a worker whose probes alternate never flips. Not thread-safe: the health checker calls it for one worker at a time.
 */
public final class HealthHysteresis {

    private boolean healthy;
    private int successes;
    private int failures;

    /** @param healthy the state to start from */
    public HealthHysteresis(boolean healthy) {
        this.healthy = healthy;
    }

    /**
     * Records one probe result.
     *
     * @return true when the state flipped
     */
    public boolean record(boolean success, int successThreshold, int failureThreshold) {
        if (success) {
            failures = 0;
            successes++;
            if (!healthy && successes >= successThreshold) {
                return flip(true);
            }
        } else {
            successes = 0;
            failures++;
            if (healthy && failures >= failureThreshold) {
                return flip(false);
            }
        }
        return false;
    }

    /** Forces a state (health checks disabled for the worker: healthy). Returns true when it changed. */
    public boolean force(boolean value) {
        successes = 0;
        failures = 0;
        if (healthy == value) {
            return false;
        }
        healthy = value;
        return true;
    }

    private boolean flip(boolean value) {
        healthy = value;
        successes = 0;
        failures = 0;
        return true;
    }

    public boolean healthy() {
        return healthy;
    }
}
