package dev.caravan.processors.admission;

import java.time.Duration;

/**
 * Admission control of the inference routes (SGLang's concurrency limiter and its defaults,
 * docs/design/upstream.md, "SGLang: router defaults").
 *
 * @param maxConcurrent    requests served at once; -1 = unlimited ({@code --max-concurrent-requests}, -1)
 * @param queueSize        requests that may wait for a slot, FIFO; 0 = none, a full limit answers 429 at once
 *                         ({@code --queue-size}, 100)
 * @param queueTimeout     how long a request may wait in the queue before 408 ({@code --queue-timeout-secs}, 60 s)
 * @param ratePerSecond    new requests admitted per second (a token bucket holding one second's worth); -1 = no rate
 *                         limit ({@code --rate-limit-tokens-per-second}, -1)
 */
public record AdmissionConfig(int maxConcurrent, int queueSize, Duration queueTimeout, int ratePerSecond) {

    public static final int DEFAULT_MAX_CONCURRENT = -1;
    public static final int DEFAULT_QUEUE_SIZE = 100;
    public static final Duration DEFAULT_QUEUE_TIMEOUT = Duration.ofSeconds(60);
    public static final int DEFAULT_RATE_PER_SECOND = -1;

    public AdmissionConfig {
        if (maxConcurrent < -1 || maxConcurrent == 0) {
            throw new IllegalArgumentException("maxConcurrent must be -1 (unlimited) or >= 1, was " + maxConcurrent);
        }
        if (queueSize < 0) {
            throw new IllegalArgumentException("queueSize must be >= 0, was " + queueSize);
        }
        if (queueTimeout == null || queueTimeout.isNegative() || queueTimeout.isZero()) {
            throw new IllegalArgumentException("queueTimeout must be positive, was " + queueTimeout);
        }
        if (ratePerSecond < -1 || ratePerSecond == 0) {
            throw new IllegalArgumentException("ratePerSecond must be -1 (off) or >= 1, was " + ratePerSecond);
        }
    }

    public static AdmissionConfig defaults() {
        return new AdmissionConfig(DEFAULT_MAX_CONCURRENT, DEFAULT_QUEUE_SIZE, DEFAULT_QUEUE_TIMEOUT,
                DEFAULT_RATE_PER_SECOND);
    }

    public boolean limited() {
        return maxConcurrent > 0;
    }
}
