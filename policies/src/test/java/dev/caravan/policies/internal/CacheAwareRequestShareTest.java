package dev.caravan.policies.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;

import dev.caravan.policies.CacheAwareConfig;
import dev.caravan.policies.Decision;
import dev.caravan.policies.ManualTicker;
import dev.caravan.policies.PolicyEnvironment;
import dev.caravan.policies.SelectionContext;
import dev.caravan.policies.TestWorkers;
import dev.caravan.policies.Worker;

/**
 * cache_aware's {@code --request-share-margin}: a hit leaves a worker whose recent requests exceed the mean by the
 * margin and by more than {@link RequestShares#MIN_EXCESS}. Two tenants with long system prompts and short questions
 * (hits by rate); the shared-prefix discount is off so a busy tenant's repeats stay hits; the clock is injected.
 */
class CacheAwareRequestShareTest {

    private static final String ACME = "Tenant ACME answers from its handbook. ".repeat(60);
    private static final String BETA = "Tenant BETA answers from its catalogue. ".repeat(60);

    private final ManualTicker clock = new ManualTicker(0);
    private final List<Worker> workers = TestWorkers.of(2);

    private CacheAwarePolicy policy(CacheAwareConfig cfg) {
        CacheAwarePolicy p = new CacheAwarePolicy(cfg.withDiscountSharedPrefix(false), PolicyEnvironment.of(clock, 1));
        workers.forEach(p::onWorkerAdded);
        return p;
    }

    private Decision ask(CacheAwarePolicy p, String tenant, int question) {
        return p.select(workers, SelectionContext.ofText(tenant + "Question " + question + "?"));
    }

    /** ACME lands on w0, BETA on w1, then ACME asks {@code hits} more questions on w0: counts 1 + hits and 1. */
    private CacheAwarePolicy acmeBusy(CacheAwareConfig cfg, int hits) {
        CacheAwarePolicy p = policy(cfg);
        assertThat(ask(p, ACME, 0).worker()).isSameAs(workers.get(0));
        assertThat(ask(p, BETA, 0).worker()).isSameAs(workers.get(1));
        for (int i = 1; i <= hits; i++) {
            Decision d = ask(p, ACME, i);
            assertThat(d.worker()).isSameAs(workers.get(0));
            assertThat(d.branch()).isEqualTo("cache_hit");
        }
        return p;
    }

    @Test
    void aHitLeavesItsHolderOnceItsRecentRequestsExceedTheMeanByMoreThanTheMinimumAndTheMargin() {
        // 33 hits: w0 34, w1 1, mean 17.5, 16.5 above
        CacheAwarePolicy p = acmeBusy(CacheAwareConfig.defaults(), 33);
        Decision moved = ask(p, ACME, 34);
        assertThat(moved.worker()).isSameAs(workers.get(1));
        assertThat(moved.branch()).isEqualTo("cache_hit_over_share");
        // w0 34, w1 2, mean 18: 16 above, no more, so the next hit stays
        Decision stays = ask(p, ACME, 35);
        assertThat(stays.worker()).isSameAs(workers.get(0));
        assertThat(stays.branch()).isEqualTo("cache_hit");
    }

    @Test
    void aDivertedTenantIsHeldByBothWorkersAfterwards() {
        CacheAwarePolicy p = acmeBusy(CacheAwareConfig.defaults(), 33);
        ask(p, ACME, 34);
        assertThat(p.tree("unknown").orElseThrow().matchedCharsByTenant(ACME + "Question 99?"))
                .containsOnlyKeys(workers.get(0).url(), workers.get(1).url());
    }

    @Test
    void anOldExcessDecaysAndTheHitStays() {
        CacheAwarePolicy p = acmeBusy(CacheAwareConfig.defaults(), 33);
        clock.set(RequestShares.HALF_LIFE_NANOS); // w0 17, w1 0.5: 8.25 above the mean
        Decision d = ask(p, ACME, 34);
        assertThat(d.worker()).isSameAs(workers.get(0));
        assertThat(d.branch()).isEqualTo("cache_hit");
    }

    @Test
    void withTheMarginOffEveryHitStaysWithItsHolder() {
        CacheAwarePolicy p = acmeBusy(CacheAwareConfig.defaults().withRequestShareMargin(0), 200);
        assertThat(ask(p, ACME, 201).branch()).isEqualTo("cache_hit");
    }

    @Test
    void evenTrafficKeepsEveryHit() {
        CacheAwarePolicy p = policy(CacheAwareConfig.defaults());
        ask(p, ACME, 0);
        ask(p, BETA, 0);
        for (int i = 1; i <= 200; i++) {
            assertThat(ask(p, ACME, i).worker()).isSameAs(workers.get(0));
            assertThat(ask(p, BETA, i).worker()).isSameAs(workers.get(1));
        }
    }
}
