package dev.caravan.sync;

import java.io.Serializable;
import java.util.Map;

import com.hazelcast.map.EntryProcessor;

/**
 * One replica's call on a tenant's shared requests budget, run by Hazelcast on the key's partition owner (and replayed
 * on its backup with the same fields, so both reach the same state): the budget is a token bucket of {@code limit}
 * requests that refills at {@code limit} a minute by the cluster time the caller read; the call first charges
 * {@code charge} (a request the replica admitted on credit, minus units of an expired lease it gives back; may leave
 * the bucket in debt), then grants up to {@code want} whole units the bucket holds.
 *
 * <p>The entry is {@code [limit, level, lastMillis]}, the level in units × 60 000 as in the gateway's own buckets, so
 * refill is exact integer arithmetic. A call with another limit (the tenants file changed) starts a full bucket.
 * Returns {@code [granted, millis until one unit]}.
 */
final class TakeQuotaLease implements EntryProcessor<String, long[], long[]>, Serializable {

    private static final long serialVersionUID = 1L;
    private static final long MILLIS_PER_MINUTE = 60_000;

    private final long limit;
    private final long charge;
    private final long want;
    private final long nowMillis;

    TakeQuotaLease(long limit, long charge, long want, long nowMillis) {
        if (limit < 1 || want < 0) {
            throw new IllegalArgumentException("limit must be >= 1 and want >= 0, were " + limit + ", " + want);
        }
        this.limit = limit;
        this.charge = charge;
        this.want = want;
        this.nowMillis = nowMillis;
    }

    @Override
    public long[] process(Map.Entry<String, long[]> entry) {
        long capacity = Math.multiplyExact(limit, MILLIS_PER_MINUTE);
        long[] held = entry.getValue();
        long level = capacity;
        long last = nowMillis;
        if (held != null && held.length == 3 && held[0] == limit) {
            level = held[1];
            last = held[2];
        }
        if (nowMillis > last) {
            // no more than the time to fill up, so a long idle spell cannot overflow the product
            long elapsed = Math.min(nowMillis - last, Math.max(0, capacity - level) / limit + 1);
            level = Math.min(capacity, level + elapsed * limit);
            last = nowMillis;
        }
        level = Math.min(capacity, level - charge * MILLIS_PER_MINUTE);
        long granted = level <= 0 ? 0 : Math.min(want, level / MILLIS_PER_MINUTE);
        level -= granted * MILLIS_PER_MINUTE;
        long wait = level >= MILLIS_PER_MINUTE ? 0 : (MILLIS_PER_MINUTE - level + limit - 1) / limit;
        entry.setValue(new long[] {limit, level, last});
        return new long[] {granted, wait};
    }
}
