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
import dev.caravan.policies.WorkerLease;

/**
 * cache_aware's {@code --prefill-backlog-ratio}: a hit waits behind its holder's pending prefills only while
 * that stays within the cold cost of the largest recent prompt and within the ratio of the cheapest alternative.
 * Prompts are a tenant's 8,000-character preamble (a hit by {@code --min-prefix-match-chars 4096}) and a unique
 * document; the clock is injected, first tokens are reported through each decision's lease.
 */
class CacheAwarePrefillBacklogTest {

    private static final long MS = 1_000_000;
    private static final String PREAMBLE = "Tenant ACME answers from its handbook. ".repeat(300).substring(0, 8_000);

    private final ManualTicker clock = new ManualTicker(0);
    private final List<Worker> workers = TestWorkers.of(2);

    private CacheAwarePolicy policy(CacheAwareConfig cfg) {
        CacheAwarePolicy p = new CacheAwarePolicy(cfg.withDiscountSharedPrefix(false), PolicyEnvironment.of(clock, 1));
        workers.forEach(p::onWorkerAdded);
        return p;
    }

    private static CacheAwareConfig withRatio(double ratio) {
        return CacheAwareConfig.defaults().withPrefillBacklogRatio(ratio);
    }

    /** The preamble and a document of {@code chars} characters no other prompt starts with. */
    private static String prompt(int doc, int chars) {
        String head = doc + " document: ";
        return PREAMBLE + head + "x".repeat(chars - head.length());
    }

    private WorkerLease send(CacheAwarePolicy p, String text) {
        Decision d = p.select(workers, SelectionContext.ofText(text));
        return d.acquire();
    }

    /** A holder with a 12,000-character prefill done in 12 ms (1,000 characters per ms) and nothing pending. */
    private CacheAwarePolicy warmedHolder(CacheAwareConfig cfg) {
        CacheAwarePolicy p = policy(cfg);
        WorkerLease first = send(p, prompt(1, 4_000));
        assertThat(first.worker()).isSameAs(workers.get(0));
        clock.set(12 * MS);
        first.firstToken();
        first.release();
        clock.set(20 * MS);
        return p;
    }

    @Test
    void aHitWaitsWhileItsHoldersBacklogStaysWithinTheLargestRecentPromptAndLeavesBeyondIt() {
        CacheAwarePolicy p = warmedHolder(withRatio(2));
        Decision big = p.select(workers, SelectionContext.ofText(prompt(2, 30_000))); // 38,000: the largest prompt
        assertThat(big.worker()).isSameAs(workers.get(0));
        assertThat(big.branch()).isEqualTo("cache_hit_min_prefix");
        big.acquire();

        // holder: 30,000 pending + 4,000 = 34,000 <= 38,000
        Decision waits = p.select(workers, SelectionContext.ofText(prompt(3, 4_000)));
        assertThat(waits.worker()).isSameAs(workers.get(0));
        assertThat(waits.branch()).isEqualTo("cache_hit");
        waits.acquire();

        // holder: 34,000 pending + 10,000 = 44,000 > 38,000 and > 2 x 18,000 on the idle worker
        Decision leaves = p.select(workers, SelectionContext.ofText(prompt(4, 10_000)));
        assertThat(leaves.worker()).isSameAs(workers.get(1));
        assertThat(leaves.branch()).isEqualTo("cache_hit_prefill_backlog");
    }

    @Test
    void aHitStaysWhenTheAlternativeIsNotCheaperByTheRatio() {
        CacheAwarePolicy p = warmedHolder(withRatio(3));
        p.select(workers, SelectionContext.ofText(prompt(2, 30_000))).acquire();
        p.select(workers, SelectionContext.ofText(prompt(3, 4_000))).acquire();

        // 44,000 on the holder is not more than 3 x 18,000
        Decision d = p.select(workers, SelectionContext.ofText(prompt(4, 10_000)));
        assertThat(d.worker()).isSameAs(workers.get(0));
        assertThat(d.branch()).isEqualTo("cache_hit");
    }

    @Test
    void theHoldersProgressAtItsMeasuredSpeedIsCreditedSoANearlyDoneBacklogKeepsTheHit() {
        CacheAwarePolicy p = warmedHolder(withRatio(2));
        p.select(workers, SelectionContext.ofText(prompt(2, 30_000))).acquire();
        p.select(workers, SelectionContext.ofText(prompt(3, 4_000))).acquire();

        clock.set(50 * MS); // 30 ms of the 30,000-character prefill at 1,000 per ms: 4,000 left + 10,000 = 14,000
        Decision d = p.select(workers, SelectionContext.ofText(prompt(4, 10_000)));
        assertThat(d.worker()).isSameAs(workers.get(0));
        assertThat(d.branch()).isEqualTo("cache_hit");
    }

    @Test
    void aFirstTokenOrAReleaseTakesTheRequestOutOfTheBacklog() {
        CacheAwarePolicy p = warmedHolder(withRatio(2));
        p.select(workers, SelectionContext.ofText(prompt(2, 30_000))).acquire();
        WorkerLease second = send(p, prompt(3, 4_000));
        second.release(); // ended without a streamed event (an error, a non-streamed answer)

        // without the release 34,000 + 6,000 > 38,000 and > 2 x 14,000 would leave; now 30,000 + 6,000 <= 38,000
        Decision d = p.select(workers, SelectionContext.ofText(prompt(4, 6_000)));
        assertThat(d.worker()).isSameAs(workers.get(0));
        assertThat(d.branch()).isEqualTo("cache_hit");
    }

    @Test
    void sglangsRuleKeepsEveryHitOnItsHolder() {
        CacheAwarePolicy p = warmedHolder(CacheAwareConfig.sglang().withMinPrefixMatchChars(4_096));
        p.select(workers, SelectionContext.ofText(prompt(2, 30_000))).acquire();
        p.select(workers, SelectionContext.ofText(prompt(3, 4_000))).acquire();

        Decision d = p.select(workers, SelectionContext.ofText(prompt(4, 10_000)));
        assertThat(d.worker()).isSameAs(workers.get(0));
        assertThat(d.branch()).isEqualTo("cache_hit");
        assertThat(d.onFirstToken()).isNull();
    }
}
