package dev.caravan.policies.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.caravan.policies.CacheAwareConfig;
import dev.caravan.policies.Decision;
import dev.caravan.policies.ManualTicker;
import dev.caravan.policies.PolicyEnvironment;
import dev.caravan.policies.SelectionContext;
import dev.caravan.policies.TestWorkers;
import dev.caravan.policies.Worker;

/**
 * cache_aware's {@code --hot-prefix-replication}: one tenant's system prompt carries a given share
 * of the traffic among six other tenants, 10 requests per second on a manual clock, 4 workers; k is the fewest holders
 * that keep each within 1.15 of the mean: 3/8 of the traffic takes 3, 5/8 takes 4, 1/8 (under a quarter) 1.
 */
class CacheAwareHotPrefixTest {

    private static final String HOT = "Hot tenant system prompt: " + "answer in the house style. ".repeat(12);
    private static final int COLD_TENANTS = 6;
    private static final Duration STEP = Duration.ofMillis(100);

    private final List<Worker> workers = TestWorkers.of(4);
    private final ManualTicker clock = new ManualTicker();
    private int sent;

    private CacheAwarePolicy policy(CacheAwareConfig cfg) {
        CacheAwarePolicy p = new CacheAwarePolicy(cfg, PolicyEnvironment.of(clock, 1));
        workers.forEach(p::onWorkerAdded);
        return p;
    }

    private CacheAwarePolicy replicating() {
        return policy(CacheAwareConfig.sglang().withHotPrefixReplication(true));
    }

    /** What one run of requests did: hot requests per worker and branch, and each cold tenant's workers. */
    private record Run(Map<String, Integer> hotByWorker, Map<String, Integer> hotBranches,
                       Map<Integer, List<String>> coldWorkers, List<String> coldBranches) {
    }

    /** {@code requests} requests 100 ms apart, {@code hotOfEight} of every eight for the hot tenant. */
    private Run drive(CacheAwarePolicy p, int hotOfEight, int requests) {
        Run run = new Run(new LinkedHashMap<>(), new LinkedHashMap<>(), new HashMap<>(), new ArrayList<>());
        for (int i = 0; i < requests; i++) {
            clock.advance(STEP);
            int q = sent++;
            // Bresenham spreads the hot requests evenly over each eight
            boolean hot = ((i % 8) + 1) * hotOfEight / 8 > (i % 8) * hotOfEight / 8;
            if (hot) {
                Decision d = p.select(workers, SelectionContext.ofText(HOT + question(q)));
                run.hotByWorker().merge(d.worker().url(), 1, Integer::sum);
                run.hotBranches().merge(d.branch(), 1, Integer::sum);
            } else {
                int tenant = q % COLD_TENANTS;
                String text = "Cold tenant " + tenant + " prompt: " + "keep it short. ".repeat(16) + question(q);
                Decision d = p.select(workers, SelectionContext.ofText(text));
                run.coldWorkers().computeIfAbsent(tenant, t -> new ArrayList<>()).add(d.worker().url());
                run.coldBranches().add(d.branch());
            }
        }
        return run;
    }

    /** A user turn of its own: what the tree holds of other turns is far under the 0.3 threshold of it. */
    private static String question(int q) {
        return ("Question " + q + " on item " + q + ". ").repeat(4);
    }

    @Test
    void kIsTheFewestHoldersThatKeepEachWithinTheBalanceBound() {
        assertThat(HotPrefixes.holdersFor(0.125, 8)).isEqualTo(1); // one worker's fair share: not hot
        assertThat(HotPrefixes.holdersFor(0.134, 8)).isEqualTo(4); // Zipf 1.0's first of 1,000 tenants
        assertThat(HotPrefixes.holdersFor(0.4, 8)).isEqualTo(6); // 0.4 / 6 + 0.6 / 8 = 0.142 <= 1.15 / 8
        assertThat(HotPrefixes.holdersFor(1.0, 8)).isEqualTo(7);
        assertThat(HotPrefixes.holdersFor(1.0, 4)).isEqualTo(4);
    }

    @Test
    void withoutTheOptionTheHotTenantStaysOnOneWorker() {
        CacheAwarePolicy p = policy(CacheAwareConfig.sglang());
        drive(p, 5, 600);
        Run run = drive(p, 5, 160);
        assertThat(run.hotByWorker()).hasSize(1).containsValue(100);
        assertThat(run.hotBranches()).containsExactly(Map.entry("cache_hit", 100));
    }

    @Test
    void aPrefixWithThreeEighthsOfTheTrafficIsSpreadEvenlyOverThreeHolders() {
        CacheAwarePolicy p = replicating();
        drive(p, 3, 600);
        Run run = drive(p, 3, 160);
        assertThat(run.hotByWorker()).hasSize(3).allSatisfy((url, n) -> assertThat(n).isEqualTo(20));
        assertThat(run.hotBranches()).containsExactly(Map.entry("hot_prefix", 60));
    }

    @Test
    void kGrowsToFourHoldersWhenThePrefixLoadRisesToFiveEighths() {
        CacheAwarePolicy p = replicating();
        drive(p, 3, 600);
        drive(p, 5, 200); // 20 s: the estimate passes 0.53 (k = 4) on the way to 5/8
        Run run = drive(p, 5, 256);
        assertThat(run.hotByWorker()).hasSize(4).allSatisfy((url, n) -> assertThat(n).isEqualTo(40));
        assertThat(run.hotBranches()).containsExactly(Map.entry("hot_prefix", 160));
    }

    @Test
    void kShrinksFromFourToThreeHoldersThirtySecondsAfterTheLoadFellToThreeEighths() {
        CacheAwarePolicy p = replicating();
        drive(p, 5, 600);
        Run before = drive(p, 3, 160);
        assertThat(before.hotByWorker()).hasSize(4);
        drive(p, 3, 400); // the estimate stays under 0.45 (k = 3) from about 17 s on; 30 s later k shrinks
        Run after = drive(p, 3, 160);
        assertThat(after.hotByWorker()).hasSize(3).allSatisfy((url, n) -> assertThat(n).isEqualTo(20));
        assertThat(after.hotBranches()).containsExactly(Map.entry("hot_prefix", 60));
        assertThat(before.hotByWorker()).containsKeys(after.hotByWorker().keySet().toArray(String[]::new));
    }

    @Test
    void kShrinksOnlyAfterThirtySecondsOfLowerLoadThenTheHotTenantRoutesByCacheAgain() {
        CacheAwarePolicy p = replicating();
        drive(p, 5, 600);
        assertThat(drive(p, 5, 160).hotByWorker()).hasSize(4);
        // the load falls to 1/8 (k = 1 once the estimate has followed): for 20 s the four holders keep sharing it
        Run justAfter = drive(p, 1, 200);
        assertThat(justAfter.hotByWorker()).hasSize(4);
        assertThat(justAfter.hotBranches()).containsOnlyKeys("hot_prefix");
        drive(p, 1, 250);
        // 45 s later: no longer replicated; the hot tenant's requests route by cache, to workers that hold its prompt
        Run later = drive(p, 1, 160);
        assertThat(later.hotBranches()).containsExactly(Map.entry("cache_hit", 20));
        assertThat(justAfter.hotByWorker()).containsKeys(later.hotByWorker().keySet().toArray(String[]::new));
    }

    @Test
    void aHotPromptsRequestsAllCountAgainstThePromptNotAlsoAgainstItsDeeperBranchPoints() {
        CacheAwarePolicy p = replicating();
        // 5/8 of the traffic is the hot prompt; three of its five requests go on with "Kind A", two with "Kind B", so
        // "hot prompt + Kind A: Question " is itself a branch point with 3/8 of the traffic (over 1/4) below it
        Map<String, Integer> byWorker = new LinkedHashMap<>();
        Map<String, Integer> branches = new LinkedHashMap<>();
        int hotSent = 0;
        for (int i = 0; i < 760; i++) {
            clock.advance(STEP);
            int q = sent++;
            if (((i % 8) + 1) * 5 / 8 > (i % 8) * 5 / 8) {
                String kind = hotSent++ % 5 < 3 ? "Kind A: " : "Kind B: ";
                Decision d = p.select(workers, SelectionContext.ofText(HOT + kind + question(q)));
                if (i >= 600) {
                    byWorker.merge(d.worker().url(), 1, Integer::sum);
                    branches.merge(d.branch(), 1, Integer::sum);
                }
            } else {
                p.select(workers, SelectionContext.ofText("Cold tenant " + q % COLD_TENANTS + " prompt: "
                        + "keep it short. ".repeat(16) + question(q)));
            }
        }
        // one prefix with 5/8 of the traffic: four holders taking turns (keyed by the deepest point instead, the
        // "Kind A" requests count against a prefix of their own, 3/8 of the traffic, and spread over three)
        assertThat(branches).containsExactly(Map.entry("hot_prefix", 100));
        assertThat(byWorker).hasSize(4).allSatisfy((url, n) -> assertThat(n).isEqualTo(25));
    }

    @Test
    void ofNestedBranchPointsARequestIsKeyedToTheShallowestThatAloneMakesItAHitElseTheDeepest() {
        long[] points = {18, 350, 368};
        assertThat(HotPrefixes.keyPoint(points, shared -> shared >= 350)).isEqualTo(350);
        assertThat(HotPrefixes.keyPoint(points, shared -> false)).isEqualTo(368);
        assertThat(HotPrefixes.keyPoint(new long[0], shared -> true)).isZero();
    }

    @Test
    void tenantsWithLessThanOneWorkersShareKeepTheirWorkerWhileAnotherPrefixIsReplicated() {
        CacheAwarePolicy p = replicating();
        Run run = drive(p, 5, 800);
        assertThat(run.coldWorkers()).hasSize(COLD_TENANTS).allSatisfy((tenant, urls) ->
                assertThat(urls).containsOnly(urls.get(0)));
        // every cold request after its tenant's first is a hit on that worker; none is moved as a hot prefix
        assertThat(run.coldBranches().stream().filter("cache_hit"::equals).count())
                .isEqualTo(run.coldBranches().size() - COLD_TENANTS);
    }

    @Test
    void aConversationWhoseOwnHistoryHitsKeepsItsWorkerThoughItsPreambleIsHot() {
        CacheAwarePolicy p = replicating();
        drive(p, 5, 600);
        String conversation = HOT + "Question 9999? Answer: it depends on the contract terms. Follow-up: which?";
        Worker first = p.select(workers, SelectionContext.ofText(conversation)).worker();
        for (int turn = 1; turn <= 5; turn++) {
            clock.advance(STEP);
            conversation += " Answer " + turn + ": see clause " + turn + ". Next?";
            Decision d = p.select(workers, SelectionContext.ofText(conversation));
            assertThat(d.worker()).isSameAs(first);
            assertThat(d.branch()).isEqualTo("cache_hit");
        }
    }
}
