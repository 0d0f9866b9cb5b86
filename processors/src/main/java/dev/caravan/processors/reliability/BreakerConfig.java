package dev.caravan.processors.reliability;

import java.time.Duration;

/**
 * Settings of the per-worker circuit breakers (SGLang's router defaults, docs/design/upstream.md,
 * "SGLang: router defaults").
 *
 * @param enabled          false ({@code --disable-circuit-breaker}): breakers never open and record nothing
 * @param failureThreshold consecutive failed attempts that open a closed breaker ({@code --cb-failure-threshold}, 10)
 * @param successThreshold consecutive successful attempts that close a half-open breaker ({@code --cb-success-threshold}, 3)
 * @param openTimeout      how long a breaker stays open before it lets a request through again, half-open
 *                         ({@code --cb-timeout-duration-secs}, 60 s)
 */
public record BreakerConfig(boolean enabled, int failureThreshold, int successThreshold, Duration openTimeout) {

    public static final int DEFAULT_FAILURE_THRESHOLD = 10;
    public static final int DEFAULT_SUCCESS_THRESHOLD = 3;
    public static final Duration DEFAULT_OPEN_TIMEOUT = Duration.ofSeconds(60);
    /** SGLang's {@code --cb-window-duration-secs} default; SGLang stores it and never reads it, and neither do we. */
    public static final long DEFAULT_WINDOW_SECS = 120;

    public BreakerConfig {
        if (failureThreshold < 1) {
            throw new IllegalArgumentException("cb failureThreshold must be >= 1, was " + failureThreshold);
        }
        if (successThreshold < 1) {
            throw new IllegalArgumentException("cb successThreshold must be >= 1, was " + successThreshold);
        }
        if (openTimeout == null || openTimeout.isNegative() || openTimeout.isZero()) {
            throw new IllegalArgumentException("cb openTimeout must be positive, was " + openTimeout);
        }
    }

    public static BreakerConfig defaults() {
        return new BreakerConfig(true, DEFAULT_FAILURE_THRESHOLD, DEFAULT_SUCCESS_THRESHOLD, DEFAULT_OPEN_TIMEOUT);
    }
}
