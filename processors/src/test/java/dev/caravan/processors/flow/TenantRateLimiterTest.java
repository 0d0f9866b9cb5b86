package dev.caravan.processors.flow;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

class TenantRateLimiterTest {

    private final AtomicLong millis = new AtomicLong(1_000_000);
    private final Clock clock = new Clock() {
        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(millis.get());
        }
    };
    private final TenantRateLimiter limiter = new TenantRateLimiter(clock);

    private static Tenant tenant(long rpm, long inputTpm, long outputTpm) {
        return new Tenant("acme", TenantClass.DEFAULT, new TenantLimits(rpm, inputTpm, outputTpm));
    }

    @Test
    void theThirdRequestOfTwoPerMinuteIsRefusedWithOpenAiHeaders() {
        Tenant t = tenant(2, -1, -1);
        assertThat(limiter.acquire(t, 0).headers()).containsEntry("x-ratelimit-remaining-requests", "1");
        assertThat(limiter.acquire(t, 0).allowed()).isTrue();

        RateVerdict third = limiter.acquire(t, 0);

        assertThat(third.allowed()).isFalse();
        assertThat(third.limit()).isEqualTo(RateVerdict.REQUESTS);
        assertThat(third.retryAfterSeconds()).isEqualTo(30);
        assertThat(third.headers()).containsExactly(
                java.util.Map.entry("x-ratelimit-limit-requests", "2"),
                java.util.Map.entry("x-ratelimit-remaining-requests", "0"),
                java.util.Map.entry("x-ratelimit-reset-requests", "1m0s"));
    }

    @Test
    void theBudgetRefillsContinuously() {
        Tenant t = tenant(2, -1, -1);
        limiter.acquire(t, 0);
        limiter.acquire(t, 0);
        millis.addAndGet(29_999);
        assertThat(limiter.acquire(t, 0).allowed()).isFalse();
        millis.addAndGet(1);
        assertThat(limiter.acquire(t, 0).allowed()).isTrue();
    }

    @Test
    void aPromptEstimateIsCorrectedToTheReportedUsage() {
        Tenant t = tenant(-1, 1000, -1);
        assertThat(limiter.acquire(t, 600).headers()).containsEntry("x-ratelimit-remaining-tokens", "400");

        limiter.settle(t, 100 - 600, 0); // usage said 100 prompt tokens

        assertThat(limiter.acquire(t, 0).headers()).containsEntry("x-ratelimit-remaining-tokens", "900");
    }

    @Test
    void outputTokensSettledAfterTheResponseHoldBackTheNextRequestsUntilTheDebtRefills() {
        Tenant t = tenant(-1, -1, 100);
        assertThat(limiter.acquire(t, 0).allowed()).isTrue();

        limiter.settle(t, 0, 250); // 150 over budget

        RateVerdict next = limiter.acquire(t, 0);
        assertThat(next.allowed()).isFalse();
        assertThat(next.limit()).isEqualTo(RateVerdict.OUTPUT_TOKENS);
        // 151 tokens at 100 a minute: 90.6 s
        assertThat(next.retryAfterSeconds()).isEqualTo(91);
        assertThat(next.headers()).containsEntry("x-ratelimit-remaining-output-tokens", "0")
                .containsEntry("x-ratelimit-reset-output-tokens", "2m30s");
        millis.addAndGet(90_600);
        assertThat(limiter.acquire(t, 0).allowed()).isTrue();
    }

    @Test
    void aPromptLargerThanTheWholeBudgetPassesOnlyFromAFullBucket() {
        Tenant t = tenant(-1, 100, -1);
        assertThat(limiter.acquire(t, 500).allowed()).isTrue();
        RateVerdict next = limiter.acquire(t, 500);
        assertThat(next.allowed()).isFalse();
        assertThat(next.limit()).isEqualTo(RateVerdict.INPUT_TOKENS);
        assertThat(next.retryAfterSeconds()).isEqualTo(300); // 400 in debt, then the whole 100: 500 tokens, 5 minutes
    }

    @Test
    void aTenantWithoutLimitsIsNeverRefusedAndGetsNoHeaders() {
        Tenant t = tenant(-1, -1, -1);
        for (int i = 0; i < 1000; i++) {
            assertThat(limiter.acquire(t, 1_000_000)).isEqualTo(RateVerdict.UNLIMITED);
        }
    }

    @Test
    void newLimitsFromAReloadStartAFreshBudget() {
        limiter.acquire(tenant(1, -1, -1), 0);
        assertThat(limiter.acquire(tenant(1, -1, -1), 0).allowed()).isFalse();

        assertThat(limiter.acquire(tenant(5, -1, -1), 0).headers())
                .containsEntry("x-ratelimit-remaining-requests", "4");
    }

    @Test
    void resetsAreWrittenAsOpenAiWritesThem() {
        assertThat(TenantRateLimiter.resetText(0)).isEqualTo("0s");
        assertThat(TenantRateLimiter.resetText(250)).isEqualTo("250ms");
        assertThat(TenantRateLimiter.resetText(1500)).isEqualTo("1.5s");
        assertThat(TenantRateLimiter.resetText(60_000)).isEqualTo("1m0s");
        assertThat(TenantRateLimiter.resetText(361_000)).isEqualTo("6m1s");
    }
    @Test
    void peersChargesUseUpTheBudgetAndAreNotCountedAsLocalUsage() {
        Tenant t = tenant(10, 1000, -1);
        assertThat(limiter.acquire(t, 100).allowed()).isTrue();
        limiter.settle(t, -40, 7);

        limiter.chargePeers(t, 9, 500, 0);

        RateVerdict refused = limiter.acquire(t, 1);
        assertThat(refused.allowed()).isFalse();
        assertThat(refused.limit()).isEqualTo(RateVerdict.REQUESTS);
        assertThat(refused.retryAfterSeconds()).isEqualTo(6);
        assertThat(limiter.localUsage()).containsOnlyKeys("acme");
        assertThat(limiter.localUsage().get("acme")).containsExactly(1, 60, 7);
    }

    @Test
    void peersRefundsGiveInputTokensBack() {
        Tenant t = tenant(-1, 100, -1);
        limiter.chargePeers(t, 0, 100, 0);
        assertThat(limiter.acquire(t, 10).allowed()).isFalse();

        limiter.chargePeers(t, 0, -10, 0);

        assertThat(limiter.acquire(t, 10).allowed()).isTrue();
    }

    @Test
    void outputChargedWhileStreamingRefusesTheNextRequestAndASettlementBelowItGivesTheRestBack() {
        Tenant t = tenant(-1, -1, 10);
        assertThat(limiter.acquire(t, 0).allowed()).isTrue();

        limiter.chargeOutput(t, 12); // the stream so far, before it ended

        RateVerdict refused = limiter.acquire(t, 0);
        assertThat(refused.allowed()).isFalse();
        assertThat(refused.limit()).isEqualTo(RateVerdict.OUTPUT_TOKENS);
        assertThat(refused.retryAfterSeconds()).as("2 in debt plus 1 at 10 a minute: 18 s").isEqualTo(18);

        limiter.settle(t, 0, -4); // usage said 8
        assertThat(limiter.acquire(t, 0).headers()).containsEntry("x-ratelimit-remaining-output-tokens", "2");
        assertThat(limiter.localUsage().get("acme")).containsExactly(2, 0, 8);
    }

    @Test
    void peersOutputCorrectionsGiveOutputTokensBack() {
        Tenant t = tenant(-1, -1, 100);
        limiter.chargePeers(t, 0, 0, 100);
        assertThat(limiter.acquire(t, 0).allowed()).isFalse();

        limiter.chargePeers(t, 0, 0, -1);

        assertThat(limiter.acquire(t, 0).allowed()).isTrue();
    }

    @Test
    void theFleetBudgetIsAskedOnlyOnceTheLocalBucketsAllowAndItsWaitRefusesTheRequest() {
        Tenant t = tenant(3, 100, -1);
        java.util.List<Long> fleetAnswers = new java.util.ArrayList<>(java.util.List.of(0L, 2_500L));
        AtomicLong asked = new AtomicLong();
        limiter.shareRequests(tenant -> {
            asked.incrementAndGet();
            return fleetAnswers.remove(0);
        });

        assertThat(limiter.acquire(t, 10).allowed()).isTrue();
        RateVerdict refusedByTheFleet = limiter.acquire(t, 10);
        RateVerdict refusedLocally = limiter.acquire(t, 1_000); // more prompt tokens than the bucket holds

        assertThat(refusedByTheFleet.allowed()).isFalse();
        assertThat(refusedByTheFleet.limit()).isEqualTo(RateVerdict.REQUESTS);
        assertThat(refusedByTheFleet.retryAfterSeconds()).isEqualTo(3);
        assertThat(refusedByTheFleet.headers()).containsEntry("x-ratelimit-remaining-requests", "2")
                .containsEntry("x-ratelimit-remaining-tokens", "90");
        assertThat(refusedLocally.limit()).isEqualTo(RateVerdict.INPUT_TOKENS);
        assertThat(asked.get()).isEqualTo(2);
    }

    @Test
    void aTenantWithoutARequestsLimitNeverAsksTheFleet() {
        limiter.shareRequests(tenant -> {
            throw new AssertionError("asked the fleet for " + tenant.name());
        });

        assertThat(limiter.acquire(tenant(-1, 100, -1), 10).allowed()).isTrue();
    }
}
