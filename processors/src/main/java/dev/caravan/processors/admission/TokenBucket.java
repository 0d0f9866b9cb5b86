package dev.caravan.processors.admission;

import java.util.function.LongSupplier;

/**
 * A token bucket: {@code ratePerSecond} tokens a second, holding at most one second's worth (so a burst of up to
 * {@code ratePerSecond} requests passes after a quiet second). Refilled lazily from the injected clock on each take.
 * Thread-safe (one short critical section).
 */
final class TokenBucket {

    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private final double ratePerNano;
    private final double capacity;
    private final LongSupplier nanoTime;
    private double tokens;
    private long lastNanos;

    TokenBucket(int ratePerSecond, LongSupplier nanoTime) {
        this.ratePerNano = (double) ratePerSecond / NANOS_PER_SECOND;
        this.capacity = ratePerSecond;
        this.nanoTime = nanoTime;
        this.tokens = capacity;
        this.lastNanos = nanoTime.getAsLong();
    }

    /** Takes one token if there is one. */
    synchronized boolean tryTake() {
        long now = nanoTime.getAsLong();
        tokens = Math.min(capacity, tokens + (now - lastNanos) * ratePerNano);
        lastNanos = now;
        if (tokens >= 1) {
            tokens -= 1;
            return true;
        }
        return false;
    }
}
