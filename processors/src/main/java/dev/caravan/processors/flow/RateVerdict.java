package dev.caravan.processors.flow;

import java.util.Map;

/**
 * A tenant rate limiter's answer for one request.
 *
 * @param allowed           true when the request may go on (its request and prompt tokens are taken)
 * @param limit             which limit refused it ({@code requests}, {@code input_tokens}, {@code output_tokens}),
 *                          or null when allowed
 * @param retryAfterSeconds when to try again (at least 1), 0 when allowed or {@link #PENDING}
 * @param headers           OpenAI's {@code x-ratelimit-*} headers for the tenant's limits, in a stable order
 */
public record RateVerdict(boolean allowed, String limit, long retryAfterSeconds, Map<String, String> headers) {

    public static final String REQUESTS = "requests";
    public static final String INPUT_TOKENS = "input_tokens";
    public static final String OUTPUT_TOKENS = "output_tokens";

    /** Allowed, without limits to report. */
    public static final RateVerdict UNLIMITED = new RateVerdict(true, null, 0, Map.of());

    /**
     * Nothing taken yet: the tenant's requests budget shared by the replicas has more on its way to this replica; the
     * caller asks again once it has arrived ({@code TenantRateLimiter.whenFleetAnswers}).
     */
    public static final RateVerdict PENDING = new RateVerdict(false, REQUESTS, 0, Map.of());

    /** True for {@link #PENDING}. */
    public boolean pending() {
        return !allowed && retryAfterSeconds == 0;
    }
}
