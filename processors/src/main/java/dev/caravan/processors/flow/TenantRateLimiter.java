package dev.caravan.processors.flow;

import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Per-tenant rate limits: requests, prompt tokens and output tokens per minute ({@link TenantLimits}), each a
 * {@link MinuteBucket}. {@link #acquire} takes one request and the prompt's estimate, or refuses with the limit that
 * binds and when to retry; {@link #chargeOutput} takes output tokens as a response streams (its estimate, chunk by
 * chunk) and {@link #settle} corrects the prompt's and the output's estimates against {@code usage} once the response
 * has ended. So output is limited by debt: a tenant whose streams took its output budget is refused new requests, even
 * while those streams still run, until the debt has refilled; admitted streams are never cut.
 *
 * <p>Headers follow OpenAI: {@code x-ratelimit-limit-requests}, {@code x-ratelimit-remaining-requests},
 * {@code x-ratelimit-reset-requests} and the same for {@code -tokens} (prompt tokens) and {@code -output-tokens}, for
 * the limits the tenant has; resets are durations such as {@code 1s}, {@code 250ms} or {@code 6m0s}.
 *
 * <p>With replica sync the requests limit is also the fleet's: once the local buckets allow a request, a
 * {@link FleetBudget} must take it from the tenant's budget shared by the replicas ({@link #shareRequests}), or the
 * request is refused with the wait it gives; when this replica's share is on its way, a caller that may wait gets
 * {@link RateVerdict#PENDING} and asks again once it has arrived ({@link #whenFleetAnswers}).
 *
 * <p>State is kept per tenant name (the tenants file's tenants and {@code other}: bounded); a reload that changes a
 * tenant's limits starts its buckets afresh. Thread-safe: one lock per tenant. Time comes from the injected clock.
 */
public final class TenantRateLimiter {

    private final Clock clock;
    private final Map<String, Buckets> state = new ConcurrentHashMap<>();
    private final Map<String, Usage> usage = new ConcurrentHashMap<>();
    private volatile FleetBudget fleet = FleetBudget.NONE;

    public TenantRateLimiter(Clock clock) {
        this.clock = clock;
    }

    /** Takes requests-per-minute budgets from {@code fleet} too, after the local buckets (replica sync sets one). */
    public void shareRequests(FleetBudget fleet) {
        this.fleet = fleet;
    }

    /** Runs {@code then} once the fleet's answer a {@link RateVerdict#PENDING} request waits for has arrived. */
    public void whenFleetAnswers(Tenant tenant, Runnable then) {
        fleet.whenAnswered(tenant, then);
    }

    /** Takes one request and {@code inputTokens} of the tenant's budgets, or says which limit refuses them. */
    public RateVerdict acquire(Tenant tenant, long inputTokens) {
        return acquire(tenant, inputTokens, false);
    }

    /**
     * Takes one request and {@code inputTokens} of the tenant's budgets, or says which limit refuses them.
     *
     * @param mayWait true when the caller can wait for the fleet's answer: {@link RateVerdict#PENDING} then stands for
     *                "nothing taken, ask again once {@link #whenFleetAnswers} runs"; otherwise that case is refused
     *                with {@link FleetBudget#PENDING_RETRY_MILLIS}
     */
    public RateVerdict acquire(Tenant tenant, long inputTokens, boolean mayWait) {
        if (tenant.limits().equals(TenantLimits.NONE)) {
            return RateVerdict.UNLIMITED;
        }
        Buckets b = buckets(tenant);
        long now = clock.millis();
        synchronized (b) {
            long waitMillis = 0;
            String binding = null;
            long w;
            if (b.requests != null && (w = b.requests.millisUntil(1, now)) > waitMillis) {
                waitMillis = w;
                binding = RateVerdict.REQUESTS;
            }
            if (b.input != null && (w = b.input.millisUntil(inputTokens, now)) > waitMillis) {
                waitMillis = w;
                binding = RateVerdict.INPUT_TOKENS;
            }
            if (b.output != null && (w = b.output.millisUntil(1, now)) > waitMillis) {
                waitMillis = w;
                binding = RateVerdict.OUTPUT_TOKENS;
            }
            if (binding == null && b.requests != null && (w = fleet.takeRequest(tenant)) != 0) {
                if (w == FleetBudget.PENDING && mayWait) {
                    return RateVerdict.PENDING;
                }
                waitMillis = w == FleetBudget.PENDING ? FleetBudget.PENDING_RETRY_MILLIS : w;
                binding = RateVerdict.REQUESTS;
            }
            if (binding != null) {
                return new RateVerdict(false, binding, Math.max(1, (waitMillis + 999) / 1000), headers(b, now));
            }
            if (b.requests != null) {
                b.requests.take(1, now);
            }
            if (b.input != null) {
                b.input.take(inputTokens, now);
            }
            usage(tenant.name()).add(1, inputTokens, 0);
            return new RateVerdict(true, null, 0, headers(b, now));
        }
    }

    /** Takes output tokens a response is streaming now, without a check (the request was admitted): may leave debt. */
    public void chargeOutput(Tenant tenant, long outputTokens) {
        if (tenant.limits().equals(TenantLimits.NONE) || outputTokens <= 0) {
            return;
        }
        usage(tenant.name()).add(0, 0, outputTokens);
        Buckets b = buckets(tenant);
        long now = clock.millis();
        synchronized (b) {
            if (b.output != null) {
                b.output.take(outputTokens, now);
            }
        }
    }

    /**
     * Settles a request once its response ended.
     *
     * @param inputCorrection  the real prompt tokens minus the estimate taken (negative gives tokens back)
     * @param outputCorrection the output tokens the engine reported minus those {@link #chargeOutput} took while it
     *                         streamed (all of them when nothing streamed; negative gives tokens back)
     */
    public void settle(Tenant tenant, long inputCorrection, long outputCorrection) {
        if (tenant.limits().equals(TenantLimits.NONE)) {
            return;
        }
        usage(tenant.name()).add(0, inputCorrection, outputCorrection);
        Buckets b = buckets(tenant);
        long now = clock.millis();
        synchronized (b) {
            adjust(b.input, inputCorrection, now);
            adjust(b.output, outputCorrection, now);
        }
    }

    /** Takes a positive count, gives back a negative one (a correction or a peer's); nothing without a limit. */
    private static void adjust(MinuteBucket bucket, long units, long now) {
        if (bucket == null || units == 0) {
            return;
        }
        if (units > 0) {
            bucket.take(units, now);
        } else {
            bucket.giveBack(-units, now);
        }
    }

    /**
     * Charges what other gateway replicas admitted for the tenant (fleet-wide quotas): taken from its buckets without
     * a check, so they may go into debt, which this replica's next requests then wait out; not counted in
     * {@link #localUsage}. A negative token count (peers' refunds and corrections to usage) gives tokens back.
     */
    public void chargePeers(Tenant tenant, long requests, long inputTokens, long outputTokens) {
        if (tenant.limits().equals(TenantLimits.NONE)) {
            return;
        }
        Buckets b = buckets(tenant);
        long now = clock.millis();
        synchronized (b) {
            if (b.requests != null && requests > 0) {
                b.requests.take(requests, now);
            }
            adjust(b.input, inputTokens, now);
            adjust(b.output, outputTokens, now);
        }
    }

    /**
     * What this replica admitted, streamed and settled since it started, per tenant with limits: requests, input tokens
     * and output tokens (each net of refunds and corrections), each a running total, for its peers to charge the
     * differences.
     */
    public Map<String, long[]> localUsage() {
        Map<String, long[]> out = new LinkedHashMap<>();
        usage.forEach((name, u) -> out.put(name, u.snapshot()));
        return out;
    }

    private Usage usage(String tenant) {
        return usage.computeIfAbsent(tenant, t -> new Usage());
    }

    private Buckets buckets(Tenant tenant) {
        return state.compute(tenant.name(), (name, old) -> old != null && old.limits.equals(tenant.limits()) ? old
                : new Buckets(tenant.limits(), clock.millis()));
    }

    private static Map<String, String> headers(Buckets b, long now) {
        Map<String, String> h = new LinkedHashMap<>();
        put(h, "requests", b.requests, now);
        put(h, "tokens", b.input, now);
        put(h, "output-tokens", b.output, now);
        return h;
    }

    private static void put(Map<String, String> h, String suffix, MinuteBucket bucket, long now) {
        if (bucket == null) {
            return;
        }
        h.put("x-ratelimit-limit-" + suffix, Long.toString(bucket.limit()));
        h.put("x-ratelimit-remaining-" + suffix, Long.toString(bucket.remaining(now)));
        h.put("x-ratelimit-reset-" + suffix, resetText(bucket.millisUntilFull(now)));
    }

    /** A reset duration as OpenAI writes it: {@code 0s}, {@code 250ms}, {@code 1.5s}, {@code 6m0s}. */
    static String resetText(long millis) {
        if (millis <= 0) {
            return "0s";
        }
        if (millis < 1000) {
            return millis + "ms";
        }
        long minutes = millis / 60_000;
        long rest = millis % 60_000;
        String seconds = rest % 1000 == 0 ? Long.toString(rest / 1000)
                : java.math.BigDecimal.valueOf(rest, 3).stripTrailingZeros().toPlainString();
        return minutes > 0 ? minutes + "m" + seconds + "s" : seconds + "s";
    }

    /** One tenant's running totals on this replica: requests, input tokens, output tokens. */
    private static final class Usage {
        private final LongAdder requests = new LongAdder();
        private final LongAdder input = new LongAdder();
        private final LongAdder output = new LongAdder();

        void add(long r, long in, long out) {
            requests.add(r);
            input.add(in);
            output.add(out);
        }

        long[] snapshot() {
            return new long[] {requests.sum(), input.sum(), output.sum()};
        }
    }

    /** One tenant's buckets (null where it has no limit), for the limits they were built for. */
    private static final class Buckets {
        final TenantLimits limits;
        final MinuteBucket requests;
        final MinuteBucket input;
        final MinuteBucket output;

        Buckets(TenantLimits limits, long now) {
            this.limits = limits;
            this.requests = bucket(limits.requestsPerMinute(), now);
            this.input = bucket(limits.inputTokensPerMinute(), now);
            this.output = bucket(limits.outputTokensPerMinute(), now);
        }

        private static MinuteBucket bucket(long limit, long now) {
            return limit == TenantLimits.UNLIMITED ? null : new MinuteBucket(limit, now);
        }
    }
}
