package dev.caravan.policies;

import java.time.Duration;

/**
 * Configuration of {@code bucket} (prefill routing by prompt length). The balance thresholds are the same CLI flags as
 * cache_aware's and share its defaults.
 *
 * @param balanceAbsThreshold   the windowed characters-per-worker guard fires only when {@code max - min} is strictly
 *                              above this (characters); &gt;= 0; default {@value #DEFAULT_BALANCE_ABS_THRESHOLD}
 * @param balanceRelThreshold   ... and {@code max > min * balanceRelThreshold}; finite, &gt;= 0; default
 *                              {@value #DEFAULT_BALANCE_REL_THRESHOLD}
 * @param bucketAdjustInterval  the sliding window over which characters are counted, and how often the gateway
 *                              re-balances the length boundaries ({@link Maintainable}); &gt; 0; default 5 s
 */
public record BucketConfig(int balanceAbsThreshold, double balanceRelThreshold, Duration bucketAdjustInterval)
        implements PolicyConfig {

    public static final int DEFAULT_BALANCE_ABS_THRESHOLD = CacheAwareConfig.DEFAULT_BALANCE_ABS_THRESHOLD;
    public static final double DEFAULT_BALANCE_REL_THRESHOLD = CacheAwareConfig.DEFAULT_BALANCE_REL_THRESHOLD;
    public static final Duration DEFAULT_BUCKET_ADJUST_INTERVAL = Duration.ofSeconds(5);

    public BucketConfig {
        Checks.atLeast(balanceAbsThreshold, 0, "balanceAbsThreshold", BALANCE_ABS_THRESHOLD);
        Checks.nonNegativeFinite(balanceRelThreshold, "balanceRelThreshold", BALANCE_REL_THRESHOLD);
        Checks.positive(bucketAdjustInterval, "bucketAdjustInterval", BUCKET_ADJUST_INTERVAL);
    }

    public static BucketConfig defaults() {
        return new BucketConfig(DEFAULT_BALANCE_ABS_THRESHOLD, DEFAULT_BALANCE_REL_THRESHOLD,
                DEFAULT_BUCKET_ADJUST_INTERVAL);
    }

    static BucketConfig from(PolicyOptions o) {
        return new BucketConfig(
                o.getInt(BALANCE_ABS_THRESHOLD, DEFAULT_BALANCE_ABS_THRESHOLD),
                o.getDouble(BALANCE_REL_THRESHOLD, DEFAULT_BALANCE_REL_THRESHOLD),
                o.getSeconds(BUCKET_ADJUST_INTERVAL, DEFAULT_BUCKET_ADJUST_INTERVAL));
    }

    @Override
    public <R> R accept(Visitor<R> visitor) {
        return visitor.visit(this);
    }

    @Override
    public String policyName() {
        return PolicyName.BUCKET.wireName();
    }
}
