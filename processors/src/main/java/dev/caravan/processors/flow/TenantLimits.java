package dev.caravan.processors.flow;

/**
 * A tenant's rate limits, each per minute; {@link #UNLIMITED} ({@code -1}) where the file sets none.
 *
 * @param requestsPerMinute     requests admitted per minute
 * @param inputTokensPerMinute  prompt tokens per minute (estimated at admission, settled against {@code usage})
 * @param outputTokensPerMinute output tokens per minute (counted from {@code usage} when the response ends)
 */
public record TenantLimits(long requestsPerMinute, long inputTokensPerMinute, long outputTokensPerMinute) {

    public static final long UNLIMITED = -1;
    public static final TenantLimits NONE = new TenantLimits(UNLIMITED, UNLIMITED, UNLIMITED);

    public TenantLimits {
        check("requestsPerMinute", requestsPerMinute);
        check("inputTokensPerMinute", inputTokensPerMinute);
        check("outputTokensPerMinute", outputTokensPerMinute);
    }

    private static void check(String name, long v) {
        if (v != UNLIMITED && v < 1) {
            throw new IllegalArgumentException(name + " must be -1 (unlimited) or >= 1, was " + v);
        }
    }
}
