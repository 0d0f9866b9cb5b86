package dev.caravan.processors.flow;

/**
 * A per-minute budget as a token bucket: it holds at most {@code limit} units, refills at {@code limit} a minute
 * (continuously, from the clock passed in), and may go into debt when usage is settled after the fact (a response's
 * output tokens), which later requests then wait out. A request larger than the whole budget passes only from a full
 * bucket (it could never pass otherwise) and leaves it in debt.
 *
 * <p>Exact integer arithmetic: the level is kept in units × 60 000 (one millisecond of refill adds {@code limit} of
 * them), so "wait 30 s for one request" is exactly 30 000 ms, with no rounding drift.
 *
 * <p>Not thread-safe: {@link TenantRateLimiter} guards each tenant's buckets.
 */
final class MinuteBucket {

    private static final long MILLIS_PER_MINUTE = 60_000;

    private final long limit;
    private final long capacity;
    private long level;
    private long lastMillis;

    MinuteBucket(long limit, long nowMillis) {
        this.limit = limit;
        this.capacity = Math.multiplyExact(limit, MILLIS_PER_MINUTE);
        this.level = capacity;
        this.lastMillis = nowMillis;
    }

    long limit() {
        return limit;
    }

    private void refill(long nowMillis) {
        if (nowMillis > lastMillis) {
            // no more than the time to fill up, so a long idle spell cannot overflow the product
            long elapsed = Math.min(nowMillis - lastMillis, (capacity - level) / limit + 1);
            level = Math.min(capacity, level + elapsed * limit);
            lastMillis = nowMillis;
        }
    }

    /** Takes units (after {@link #millisUntil} said 0); may leave the bucket in debt. */
    void take(long units, long nowMillis) {
        refill(nowMillis);
        level -= units * MILLIS_PER_MINUTE;
    }

    /** Gives units back (a refund, or a correction of an estimate); never above the limit. */
    void giveBack(long units, long nowMillis) {
        refill(nowMillis);
        level = Math.min(capacity, level + units * MILLIS_PER_MINUTE);
    }

    /** Whole units left now, never negative. */
    long remaining(long nowMillis) {
        refill(nowMillis);
        return Math.max(0, level / MILLIS_PER_MINUTE);
    }

    /**
     * Milliseconds until {@code units} (at most the limit) could be taken; 0 when they can now. Zero units need a
     * bucket out of debt.
     */
    long millisUntil(long units, long nowMillis) {
        refill(nowMillis);
        long need = Math.max(Math.min(units, limit) * MILLIS_PER_MINUTE, 1) - level;
        return need <= 0 ? 0 : (need + limit - 1) / limit;
    }

    /** Milliseconds until the bucket is full again (OpenAI's {@code x-ratelimit-reset-*}). */
    long millisUntilFull(long nowMillis) {
        refill(nowMillis);
        long need = capacity - level;
        return need <= 0 ? 0 : (need + limit - 1) / limit;
    }
}
