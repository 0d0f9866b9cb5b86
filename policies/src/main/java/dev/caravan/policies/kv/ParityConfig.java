package dev.caravan.policies.kv;

import java.time.Duration;

/**
 * Settings of the {@link ParityTracker} self-check.
 *
 * @param expiry             how long a predicted block may wait for the engine's {@code BlockStored} before it counts
 *                           as a miss; longer than a prefill under load (default {@value #DEFAULT_EXPIRY_SECONDS} s)
 * @param window             resolved predictions the recent agreement ratio covers (default {@value #DEFAULT_WINDOW})
 * @param warnBelow          recent agreement below this is "degraded" and logged as a warning (default
 *                           {@value #DEFAULT_WARN_BELOW}); a tokenizer or chat-template mismatch drives it to ~0
 * @param minSamples         resolved predictions needed in the window before degradation is judged (default
 *                           {@value #DEFAULT_MIN_SAMPLES})
 * @param maxPendingPerWorker predictions kept per worker; beyond it the oldest are dropped uncounted (default
 *                           {@value #DEFAULT_MAX_PENDING_PER_WORKER})
 */
public record ParityConfig(Duration expiry, int window, double warnBelow, int minSamples, int maxPendingPerWorker) {

    public static final long DEFAULT_EXPIRY_SECONDS = 60;
    public static final int DEFAULT_WINDOW = 1_000;
    public static final double DEFAULT_WARN_BELOW = 0.9;
    public static final int DEFAULT_MIN_SAMPLES = 100;
    public static final int DEFAULT_MAX_PENDING_PER_WORKER = 100_000;

    public ParityConfig {
        if (expiry == null || expiry.isNegative() || expiry.isZero()) {
            throw new IllegalArgumentException("expiry must be positive, was " + expiry);
        }
        if (window < 1) {
            throw new IllegalArgumentException("window must be >= 1, was " + window);
        }
        if (!(warnBelow >= 0 && warnBelow <= 1)) {
            throw new IllegalArgumentException("warnBelow must be in [0,1], was " + warnBelow);
        }
        if (minSamples < 1 || minSamples > window) {
            throw new IllegalArgumentException("minSamples must be in [1,window=" + window + "], was " + minSamples);
        }
        if (maxPendingPerWorker < 1) {
            throw new IllegalArgumentException("maxPendingPerWorker must be >= 1, was " + maxPendingPerWorker);
        }
    }

    public static ParityConfig defaults() {
        return new ParityConfig(Duration.ofSeconds(DEFAULT_EXPIRY_SECONDS), DEFAULT_WINDOW, DEFAULT_WARN_BELOW,
                DEFAULT_MIN_SAMPLES, DEFAULT_MAX_PENDING_PER_WORKER);
    }
}
