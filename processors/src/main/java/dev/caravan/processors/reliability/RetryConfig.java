package dev.caravan.processors.reliability;

import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * Retry settings and the back-off they imply (SGLang's, docs/design/upstream.md, "SGLang: circuit breaker and
 * retries").
 *
 * <p>Delay before retry {@code k} (k = 0 before the second attempt): {@code min(initial × multiplier^k, max)}, then
 * multiplied by a uniform factor in {@code [1 − jitter, 1 + jitter]}, floored at zero.
 *
 * @param maxAttempts    total attempts including the first ({@code --retry-max-retries}, 5; SGLang's name, but it
 *                       counts attempts); 1 = no retries ({@code --disable-retries})
 * @param initialBackoff delay before the first retry ({@code --retry-initial-backoff-ms}, 50 ms)
 * @param maxBackoff     cap on the delay before jitter ({@code --retry-max-backoff-ms}, 30 s)
 * @param multiplier     growth per retry, >= 1 ({@code --retry-backoff-multiplier}, 1.5)
 * @param jitterFactor   relative jitter in [0,1] ({@code --retry-jitter-factor}, 0.2)
 */
public record RetryConfig(int maxAttempts, Duration initialBackoff, Duration maxBackoff, double multiplier,
                          double jitterFactor) {

    public static final int DEFAULT_MAX_ATTEMPTS = 5;
    public static final Duration DEFAULT_INITIAL_BACKOFF = Duration.ofMillis(50);
    public static final Duration DEFAULT_MAX_BACKOFF = Duration.ofMillis(30_000);
    public static final double DEFAULT_MULTIPLIER = 1.5;
    public static final double DEFAULT_JITTER_FACTOR = 0.2;

    public RetryConfig {
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("retry maxAttempts must be >= 1, was " + maxAttempts);
        }
        if (initialBackoff == null || initialBackoff.isNegative()) {
            throw new IllegalArgumentException("retry initialBackoff must be >= 0, was " + initialBackoff);
        }
        if (maxBackoff == null || maxBackoff.compareTo(initialBackoff) < 0) {
            throw new IllegalArgumentException("retry maxBackoff must be >= initialBackoff (" + initialBackoff
                    + "), was " + maxBackoff);
        }
        if (!(multiplier >= 1) || Double.isInfinite(multiplier)) {
            throw new IllegalArgumentException("retry multiplier must be >= 1, was " + multiplier);
        }
        if (!(jitterFactor >= 0 && jitterFactor <= 1)) {
            throw new IllegalArgumentException("retry jitterFactor must be in [0,1], was " + jitterFactor);
        }
    }

    public static RetryConfig defaults() {
        return new RetryConfig(DEFAULT_MAX_ATTEMPTS, DEFAULT_INITIAL_BACKOFF, DEFAULT_MAX_BACKOFF, DEFAULT_MULTIPLIER,
                DEFAULT_JITTER_FACTOR);
    }

    /** One attempt only. */
    public static RetryConfig disabled() {
        return new RetryConfig(1, DEFAULT_INITIAL_BACKOFF, DEFAULT_MAX_BACKOFF, DEFAULT_MULTIPLIER,
                DEFAULT_JITTER_FACTOR);
    }

    /** SGLang's retryable statuses: 408, 429, 500, 502, 503, 504. */
    public static boolean isRetryableStatus(int status) {
        return status == 408 || status == 429 || status == 500 || status == 502 || status == 503 || status == 504;
    }

    /**
     * The delay before retry {@code retry} (0-based), in milliseconds.
     *
     * @param random source of the jitter
     */
    public long backoffMillis(int retry, RandomGenerator random) {
        double base = Math.min(initialBackoff.toMillis() * Math.pow(multiplier, retry), (double) maxBackoff.toMillis());
        double jitter = jitterFactor == 0 ? 1 : 1 + jitterFactor * (2 * random.nextDouble() - 1);
        return Math.max(0, Math.round(base * jitter));
    }
}
