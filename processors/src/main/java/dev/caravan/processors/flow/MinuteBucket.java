package dev.caravan.processors.flow;

/**
 * A per-minute budget as a token bucket: it holds at most {@code limit} units, refills at {@code limit} a minute
 * (continuously, from the clock passed in), and may go into debt when usage is settled after the fact (a response's
 * output tokens), which later requests then wait out. A request larger than the whole budget passes only from a full
 * bucket (it could never pass otherwise) and leaves it in debt.
 *
 * <p>Not thread-safe: {@link TenantRateLimiter} guards each tenant's buckets.
 */
final class MinuteBucket {

    private static final double MILLIS_PER_MINUTE = 60_000.0;

    private final long limit;
    private final double perMilli;
    private double level;
    private long lastMillis;

    MinuteBucket(long limit, long nowMillis) {
        this.limit = limit;
        this.perMilli = limit / MILLIS_PER_MINUTE;
        this.level = limit;
        this.lastMillis = nowMillis;
    }

    long limit() {
        return limit;
    }

    private void refill(long nowMillis) {
        if (nowMillis > lastMillis) {
            level = Math.min(limit, level + (nowMillis - lastMillis) * perMilli);
            lastMillis = nowMillis;
        }
    }

    /** Takes units (after {@link #millisUntil} said 0); may leave the bucket in debt. */
    void take(long units, long nowMillis) {
        refill(nowMillis);
        level -= units;
    }

    /** Gives units back (a refund, or a correction of an estimate); never above the limit. */
    void giveBack(long units, long nowMillis) {
        refill(nowMillis);
        level = Math.min(limit, level + units);
    }

    /** Whole units left now, never negative. */
    long remaining(long nowMillis) {
        refill(nowMillis);
        return Math.max(0, (long) Math.floor(level));
    }

    /** Milliseconds until {@code units} (at most the limit) could be taken; 0 when they can now. */
    long millisUntil(long units, long nowMillis) {
        refill(nowMillis);
        double need = Math.max(Math.min(units, limit), Double.MIN_VALUE) - level;
        return need <= 0 ? 0 : (long) Math.ceil(need / perMilli);
    }

    /** Milliseconds until the bucket is full again (OpenAI's {@code x-ratelimit-reset-*}). */
    long millisUntilFull(long nowMillis) {
        return millisUntil(limit, nowMillis);
    }
}
