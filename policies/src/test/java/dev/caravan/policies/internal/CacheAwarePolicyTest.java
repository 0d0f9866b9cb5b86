package dev.caravan.policies.internal;

import static dev.caravan.policies.TestWorkers.load;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.caravan.policies.CacheAwareConfig;
import dev.caravan.policies.Decision;
import dev.caravan.policies.EngineLoad;
import dev.caravan.policies.ManualTicker;
import dev.caravan.policies.PolicyEnvironment;
import dev.caravan.policies.SelectionContext;
import dev.caravan.policies.TestWorkers;
import dev.caravan.policies.Worker;
import dev.caravan.policies.tree.ApproximateRadixTree;

class CacheAwarePolicyTest {

    private static SelectionContext text(String s) {
        return SelectionContext.ofText(s);
    }

    private static CacheAwarePolicy seeded(CacheAwareConfig cfg, List<Worker> workers) {
        CacheAwarePolicy p = new CacheAwarePolicy(cfg, PolicyEnvironment.seeded(1));
        workers.forEach(p::onWorkerAdded);
        return p;
    }

    @Test
    void balancedLoadKeepsSameAndSimilarPromptsOnOneWorker() {
        List<Worker> w = TestWorkers.of(2);
        CacheAwarePolicy p = seeded(CacheAwareConfig.sglang(), w);
        Decision first = p.select(w, text("hello world"));
        assertThat(first.worker()).isSameAs(w.get(0));
        assertThat(first.branch()).isEqualTo("cache_miss_min_load");
        Decision second = p.select(w, text("hello world"));
        assertThat(second.worker()).isSameAs(w.get(0));
        assertThat(second.label()).isEqualTo("cache_aware:cache_hit");
        assertThat(p.select(w, text("hello world, again")).worker()).isSameAs(w.get(0));
    }

    @Test
    void missGoesToTheLeastLoadedWorkerFirstOnTies() {
        List<Worker> w = TestWorkers.of(3);
        load(w.get(0), 3);
        load(w.get(1), 1);
        load(w.get(2), 1);
        CacheAwarePolicy p = seeded(CacheAwareConfig.sglang(), w);
        Decision d = p.select(w, text("a prompt nobody has seen"));
        assertThat(d.worker()).isSameAs(w.get(1));
        assertThat(d.branch()).isEqualTo("cache_miss_min_load");
        assertThat(p.tree("unknown").orElseThrow().prefixMatch("a prompt nobody has seen").tenant())
                .isEqualTo(w.get(1).url());
    }

    @Test
    void sequentialMissesSpreadByProcessedCountWhenLoadsTie() {
        List<Worker> w = TestWorkers.of(3);
        CacheAwarePolicy p = seeded(CacheAwareConfig.sglang(), w);
        assertThat(p.select(w, text("alpha prompt")).worker()).isSameAs(w.get(0));
        assertThat(p.select(w, text("bravo prompt")).worker()).isSameAs(w.get(1));
        assertThat(p.select(w, text("charlie prompt")).worker()).isSameAs(w.get(2));
        assertThat(p.select(w, text("delta prompt")).worker()).isSameAs(w.get(0));
    }

    @Test
    void imbalancedLoadSendsEverythingToTheLeastLoaded() {
        List<Worker> w = TestWorkers.of(2);
        CacheAwarePolicy p = seeded(CacheAwareConfig.sglang().withBalance(5, 2.0), w);
        load(w.get(0), 20);
        for (int i = 0; i < 5; i++) {
            Decision d = p.select(w, text("request " + i));
            assertThat(d.worker()).isSameAs(w.get(1));
            assertThat(d.branch()).isEqualTo("imbalanced_min_load");
        }
    }

    @Test
    void imbalancedBranchStillRecordsThePromptAndBumpsProcessed() {
        List<Worker> w = TestWorkers.of(2);
        CacheAwarePolicy p = seeded(CacheAwareConfig.sglang().withBalance(5, 2.0), w);
        load(w.get(0), 20);
        p.select(w, text("remember me"));
        assertThat(p.tree("unknown").orElseThrow().prefixMatch("remember me").tenant()).isEqualTo(w.get(1).url());
        assertThat(w.get(1).processed()).isEqualTo(1);
    }

    @Test
    void imbalanceGuardIsStrictOnTheAbsoluteGap() {
        List<Worker> w = TestWorkers.of(2);
        CacheAwarePolicy p = seeded(CacheAwareConfig.sglang().withBalance(5, 1.0), w);
        load(w.get(0), 5); // gap 5 is not > 5
        p.select(w, text("sticky prompt")); // miss -> w1 (load 0)
        assertThat(p.select(w, text("sticky prompt")).branch()).isEqualTo("cache_hit");
        load(w.get(0), 1); // gap 6 > 5 and 6 > 0
        assertThat(p.select(w, text("sticky prompt")).branch()).isEqualTo("imbalanced_min_load");
    }

    @Test
    void imbalanceGuardIsStrictOnTheRatio() {
        List<Worker> w = TestWorkers.of(2);
        CacheAwarePolicy p = seeded(CacheAwareConfig.sglang().withBalance(2, 2.0), w);
        load(w.get(0), 10);
        load(w.get(1), 5); // gap 5 > 2 but 10 is not > 5 * 2
        assertThat(p.select(w, text("x")).branch()).isEqualTo("cache_miss_min_load");
        load(w.get(0), 1); // 11 > 10
        assertThat(p.select(w, text("x")).branch()).isEqualTo("imbalanced_min_load");
    }

    @Test
    void imbalanceIsMeasuredOverAllCandidatesIncludingUnhealthyOnes() {
        List<Worker> w = TestWorkers.of(3);
        CacheAwarePolicy p = seeded(CacheAwareConfig.sglang().withBalance(5, 1.5), w);
        load(w.get(0), 30);
        load(w.get(1), 31);
        w.get(2).setHealthy(false); // load 0 but unhealthy: still counts as min
        Decision d = p.select(w, text("anything"));
        assertThat(d.branch()).isEqualTo("imbalanced_min_load");
        assertThat(d.worker()).isSameAs(w.get(0));
    }

    @Test
    void matchRateMustBeStrictlyAboveTheThreshold() {
        List<Worker> w = TestWorkers.of(2);
        CacheAwarePolicy p = seeded(CacheAwareConfig.sglang().withCacheThreshold(0.5), w);
        p.select(w, text("abcde")); // -> w0
        load(w.get(0), 1);
        // "abcdeVWXYZ": 5/10 = 0.5, not > 0.5 -> miss -> least loaded w1
        Decision atThreshold = p.select(w, text("abcdeVWXYZ"));
        assertThat(atThreshold.branch()).isEqualTo("cache_miss_min_load");
        assertThat(atThreshold.worker()).isSameAs(w.get(1));
        // "abcdeVWXY" shares 5 of 9 with w0's "abcde" and... the tree now also has abcdeVWXYZ on w1: 9/9 -> w1
        // so use a fresh branch: "abcdeQRS" matches 5/8 = 0.63 on "abcde" (both tenants) -> hit on its first owner, w0
        Decision above = p.select(w, text("abcdeQRS"));
        assertThat(above.branch()).isEqualTo("cache_hit");
        assertThat(above.worker()).isSameAs(w.get(0));
    }

    @Test
    void matchRateCountsCodePointsNotUtf16Units() {
        List<Worker> w = TestWorkers.of(2);
        CacheAwarePolicy p = seeded(CacheAwareConfig.sglang().withCacheThreshold(0.5), w);
        String emoji = "\uD83D\uDE00\uD83D\uDE01\uD83D\uDE02"; // 3 code points, 6 chars
        p.select(w, text(emoji)); // -> w0
        load(w.get(0), 1);
        // 3 matched of 7 code points = 0.43 -> miss (as UTF-16 units it would be 6/10 = 0.6, a hit)
        Decision d = p.select(w, text(emoji + "abcd"));
        assertThat(d.branch()).isEqualTo("cache_miss_min_load");
        assertThat(d.worker()).isSameAs(w.get(1));
    }

    @Test
    void emptyTextIsAMissAndRegistersNothingButTheTenant() {
        List<Worker> w = TestWorkers.of(2);
        CacheAwarePolicy p = seeded(CacheAwareConfig.sglang(), w);
        Decision d = p.select(w, text(""));
        assertThat(d.branch()).isEqualTo("cache_miss_min_load");
        assertThat(p.treeChars()).isEqualTo(Map.of("unknown", Map.of(w.get(0).url(), 0L, w.get(1).url(), 0L)));
    }

    @Test
    void removedAndUnhealthyTenantIsPurgedAndTrafficMovesOn() {
        List<Worker> w = TestWorkers.of(2);
        CacheAwarePolicy p = seeded(CacheAwareConfig.sglang(), w);
        assertThat(p.select(w, text("test1")).worker()).isSameAs(w.get(0));
        assertThat(p.select(w, text("test2")).worker()).isSameAs(w.get(0)); // "test" is 4/5 of it: a hit
        p.onWorkerRemoved(w.get(0));
        w.get(0).setHealthy(false);
        Decision d = p.select(w, text("test1"));
        assertThat(d.worker()).isSameAs(w.get(1));
        assertThat(p.treeChars().get("unknown")).doesNotContainKey(w.get(0).url());
    }

    @Test
    void staleTenantIsPurgedAndTheFirstHealthyWorkerUsedWithoutInserting() {
        List<Worker> w = TestWorkers.of(3);
        CacheAwarePolicy p = seeded(CacheAwareConfig.sglang(), w);
        load(w.get(0), 1);
        load(w.get(1), 1);
        p.select(w, text("long shared system prompt")); // -> w2 (least loaded)
        w.get(2).setHealthy(false);
        Decision d = p.select(w, text("long shared system prompt"));
        assertThat(d.branch()).isEqualTo("stale_tenant");
        assertThat(d.worker()).isSameAs(w.get(0));
        ApproximateRadixTree tree = p.tree("unknown").orElseThrow();
        assertThat(tree.hasTenant(w.get(2).url())).isFalse();
        assertThat(tree.prefixMatch("long shared system prompt").matchedChars()).isZero();
        assertThat(w.get(0).processed()).isZero();
    }

    @Test
    void tenantOutsideTheCandidateListIsStale() {
        List<Worker> all = TestWorkers.of(3);
        CacheAwarePolicy p = seeded(CacheAwareConfig.sglang(), all);
        load(all.get(0), 1);
        load(all.get(1), 1);
        p.select(all, text("prompt")); // -> w2
        Decision d = p.select(all.subList(0, 2), text("prompt")); // w2's breaker is open: filtered by the router
        assertThat(d.branch()).isEqualTo("stale_tenant");
        assertThat(d.worker()).isSameAs(all.get(0));
    }

    @Test
    void staleFallbackMinLoadPicksTheLeastLoadedAndRelearns() {
        List<Worker> w = TestWorkers.of(3);
        CacheAwarePolicy p = seeded(CacheAwareConfig.sglang().withStaleFallbackMinLoad(true), w);
        load(w.get(0), 2);
        load(w.get(1), 1);
        p.select(w, text("prompt")); // -> w2
        w.get(2).setHealthy(false);
        Decision d = p.select(w, text("prompt"));
        assertThat(d.branch()).isEqualTo("stale_tenant_min_load");
        assertThat(d.worker()).isSameAs(w.get(1));
        assertThat(p.select(w, text("prompt")).worker()).isSameAs(w.get(1));
    }

    @Test
    void minPrefixMatchCharsTurnsALongSharedPreambleIntoAHit() {
        String preamble = "P".repeat(2000);
        String doc1 = preamble + "a".repeat(8000);
        String doc2 = preamble + "b".repeat(8000);
        List<Worker> w = TestWorkers.of(2);

        CacheAwarePolicy sglang = seeded(CacheAwareConfig.sglang(), w);
        sglang.select(w, text(doc1)); // -> w0
        load(w.get(0), 1);
        Decision plain = sglang.select(w, text(doc2)); // 2000/10000 = 0.2 <= 0.3
        assertThat(plain.branch()).isEqualTo("cache_miss_min_load");
        assertThat(plain.worker()).isSameAs(w.get(1));

        List<Worker> v = TestWorkers.of(2);
        CacheAwarePolicy improved = seeded(CacheAwareConfig.sglang().withMinPrefixMatchChars(1000), v);
        improved.select(v, text(doc1)); // -> v0
        load(v.get(0), 1);
        Decision d = improved.select(v, text(doc2));
        assertThat(d.branch()).isEqualTo("cache_hit_min_prefix");
        assertThat(d.worker()).isSameAs(v.get(0));
    }

    @Test
    void minPrefixMatchCharsBelowTheLimitIsStillAMiss() {
        List<Worker> w = TestWorkers.of(2);
        CacheAwarePolicy p = seeded(CacheAwareConfig.sglang().withMinPrefixMatchChars(100), w);
        p.select(w, text("x".repeat(99) + "a".repeat(300)));
        load(w.get(0), 1);
        Decision d = p.select(w, text("x".repeat(99) + "b".repeat(300))); // 99 of 399: below 0.3 and below 100
        assertThat(d.branch()).isEqualTo("cache_miss_min_load");
    }

    @Test
    void imbalancePreferCachedKeepsAffinityWithinTheWindow() {
        List<Worker> w = TestWorkers.of(3);
        CacheAwarePolicy p = seeded(CacheAwareConfig.sglang().withBalance(10, 1.5).withImbalancePreferCached(true),
                w);
        load(w.get(0), 5);
        load(w.get(1), 5);
        p.select(w, text("tenant A's long system prompt")); // miss -> w2 (load 0)
        load(w.get(2), 8);  // w2 = 8, min = 5 -> window <= 15
        load(w.get(0), 20); // w0 = 25: imbalanced (25 - 5 > 10, 25 > 7.5)
        Decision d = p.select(w, text("tenant A's long system prompt, turn 2"));
        assertThat(d.branch()).isEqualTo("imbalanced_cached");
        assertThat(d.worker()).isSameAs(w.get(2));
    }

    @Test
    void imbalancePreferCachedIgnoresWorkersOutsideTheWindow() {
        List<Worker> w = TestWorkers.of(3);
        CacheAwarePolicy p = seeded(CacheAwareConfig.sglang().withBalance(10, 1.5).withImbalancePreferCached(true),
                w);
        load(w.get(1), 1);
        load(w.get(2), 1);
        p.select(w, text("cached on w0")); // -> w0
        load(w.get(0), 30); // w0 = 30 > 1 + 10
        Decision d = p.select(w, text("cached on w0 again"));
        assertThat(d.branch()).isEqualTo("imbalanced_min_load");
        assertThat(d.worker()).isSameAs(w.get(1));
    }

    @Test
    void imbalancePreferCachedNeedsAQualifyingMatch() {
        List<Worker> w = TestWorkers.of(3);
        CacheAwarePolicy p = seeded(CacheAwareConfig.sglang().withBalance(10, 1.5).withImbalancePreferCached(true),
                w);
        load(w.get(0), 2);
        load(w.get(1), 3);
        p.select(w, text("abc")); // -> w2
        load(w.get(2), 3);
        load(w.get(1), 30);
        // "abc" is 3 of 30 chars = 0.1: not a hit, so least loaded (w0, 2) rather than w2
        Decision d = p.select(w, text("abc" + "z".repeat(27)));
        assertThat(d.branch()).isEqualTo("imbalanced_min_load");
        assertThat(d.worker()).isSameAs(w.get(0));
    }

    @Test
    void noHealthyWorkersYieldsNone() {
        List<Worker> w = TestWorkers.of(2);
        CacheAwarePolicy p = seeded(CacheAwareConfig.sglang(), w);
        w.forEach(x -> x.setHealthy(false));
        Decision d = p.select(w, text("x"));
        assertThat(d.isEmpty()).isTrue();
        assertThat(d.branch()).isEqualTo("no_healthy_workers");
        assertThat(p.select(List.of(), text("x")).branch()).isEqualTo("no_healthy_workers");
    }

    @Test
    void workersWithoutModelShareOneTreeAndModelsGetTheirOwn() {
        List<Worker> plain = TestWorkers.of(2);
        List<Worker> llama = List.of(Worker.builder("http://l0:8000").modelId("llama").build(),
                Worker.builder("http://l1:8000").modelId("llama").build());
        CacheAwarePolicy p = new CacheAwarePolicy(CacheAwareConfig.sglang(), PolicyEnvironment.seeded(1));
        plain.forEach(p::onWorkerAdded);
        llama.forEach(p::onWorkerAdded);
        assertThat(p.treeChars().keySet()).containsExactlyInAnyOrder("unknown", "llama");
        assertThat(p.treeChars().get("unknown")).containsOnlyKeys(plain.get(0).url(), plain.get(1).url());

        p.select(plain, text("shared prompt"));
        p.select(llama, new SelectionContext("llama", "shared prompt", null, Map.of()));
        // No model on the request: the workers' model; equal loads, so the tie goes to l1, which processed fewer.
        p.select(llama, text("another"));
        assertThat(p.treeChars().get("unknown").values()).containsExactlyInAnyOrder(13L, 0L);
        assertThat(p.treeChars().get("llama")).containsExactlyInAnyOrderEntriesOf(
                Map.of(llama.get(0).url(), 13L, llama.get(1).url(), 7L));
    }

    @Test
    void removingAWorkerPurgesItFromEveryTree() {
        Worker a = Worker.builder("http://a:8000").build();
        Worker b = Worker.builder("http://b:8000").build();
        CacheAwarePolicy p = new CacheAwarePolicy(CacheAwareConfig.sglang(), PolicyEnvironment.seeded(1));
        p.select(List.of(a, b), new SelectionContext("m1", "one", null, Map.of()));
        p.select(List.of(a, b), new SelectionContext("m2", "two", null, Map.of())); // tie → b (fewer processed)
        p.select(List.of(a, b), new SelectionContext("m2", "three", null, Map.of())); // tie again → a
        assertThat(p.treeChars().get("m1")).containsKey(a.url());
        assertThat(p.treeChars().get("m2")).containsKey(a.url());
        p.onWorkerRemoved(a);
        assertThat(p.treeChars().get("m1")).doesNotContainKey(a.url());
        assertThat(p.treeChars().get("m2")).doesNotContainKey(a.url());
    }

    @Test
    void hitBumpsProcessedOnTheChosenWorker() {
        List<Worker> w = TestWorkers.of(2);
        CacheAwarePolicy p = seeded(CacheAwareConfig.sglang(), w);
        p.select(w, text("abc"));
        p.select(w, text("abc"));
        assertThat(w.get(0).processed()).isEqualTo(2);
        assertThat(w.get(1).processed()).isZero();
    }

    @Test
    void maintenanceEvictsToTheBudgetAndHonoursPerWorkerOverrides() {
        List<Worker> w = TestWorkers.of(2);
        CacheAwarePolicy p = seeded(CacheAwareConfig.sglang().withMaxTreeSize(100), w);
        for (int i = 0; i < 20; i++) {
            p.select(List.of(w.get(0)), text("w0 prompt number " + i + " ....."));
            p.select(List.of(w.get(1)), text("w1 prompt number " + i + " ....."));
        }
        p.setTenantCharBudget(w.get(1).url(), 40);
        assertThat(p.tenantCharBudget(w.get(1).url())).isEqualTo(40);
        assertThat(p.tenantCharBudget(w.get(0).url())).isEqualTo(100);
        assertThat(p.maintenanceInterval()).isEqualTo(Duration.ofSeconds(60));

        p.runMaintenance();

        Map<String, Long> chars = p.treeChars().get("unknown");
        assertThat(chars.get(w.get(0).url())).isBetween(1L, 100L);
        assertThat(chars.get(w.get(1).url())).isBetween(1L, 40L);
        p.clearTenantCharBudget(w.get(1).url());
        assertThat(p.tenantCharBudget(w.get(1).url())).isEqualTo(100);
    }

    @Test
    void rejectsNegativeBudgetOverride() {
        CacheAwarePolicy p = new CacheAwarePolicy(CacheAwareConfig.sglang(), PolicyEnvironment.seeded(1));
        assertThatThrownBy(() -> p.setTenantCharBudget("http://w0:8000", -1))
                .hasMessage("tenant char budget must be >= 0, was -1");
    }

    @Test
    void evictTenantCharsTrimsOneWorkerOldestFirst() {
        List<Worker> w = TestWorkers.of(1);
        CacheAwarePolicy p = seeded(CacheAwareConfig.sglang(), w);
        p.select(w, text("0123456789"));
        p.select(w, text("abcdefghij"));
        assertThat(p.evictTenantChars(w.get(0).url(), 5)).isEqualTo(10);
        ApproximateRadixTree tree = p.tree("unknown").orElseThrow();
        assertThat(tree.prefixMatch("0123456789").matchedChars()).isZero();
        assertThat(tree.prefixMatch("abcdefghij").matchedChars()).isEqualTo(10);
    }

    @Test
    void resetForgetsAllTrees() {
        List<Worker> w = TestWorkers.of(2);
        CacheAwarePolicy p = seeded(CacheAwareConfig.sglang(), w);
        p.select(w, text("abc"));
        p.reset();
        assertThat(p.treeChars()).isEmpty();
        assertThat(p.tree("unknown")).isEmpty();
    }

    @Test
    void needsRequestText() {
        assertThat(new CacheAwarePolicy(CacheAwareConfig.sglang(), PolicyEnvironment.seeded(1)).needsRequestText())
                .isTrue();
    }

    // ---- --balance-engine-load: engine-queue-aware balance guard -------------------------------------------------

    private static final Duration MAX_AGE = Duration.ofSeconds(10);

    /** w0 holds the prompt and has the same in-flight count as w1, but its engine queues 70 requests. */
    private static Decision hitWithLongEngineQueue(boolean balanceEngineLoad, Duration age) {
        List<Worker> w = TestWorkers.of(2);
        ManualTicker clock = new ManualTicker(1_000_000_000L);
        CacheAwareConfig cfg = CacheAwareConfig.sglang().withBalanceEngineLoad(balanceEngineLoad, MAX_AGE);
        CacheAwarePolicy p = new CacheAwarePolicy(cfg, PolicyEnvironment.of(clock, 1));
        w.forEach(p::onWorkerAdded);
        assertThat(p.select(w, text("the shared system prompt")).worker()).isSameAs(w.get(0));
        load(w.get(0), 3);
        load(w.get(1), 3);
        w.get(0).setEngineLoad(new EngineLoad(-1, 10, 60, 0.9, clock.getAsLong()));
        w.get(1).setEngineLoad(new EngineLoad(-1, 3, 0, 0.1, clock.getAsLong()));
        clock.advance(age);
        return p.select(w, text("the shared system prompt"));
    }

    @Test
    void longEngineQueueTripsTheGuardOnlyWithBalanceEngineLoad() {
        Decision on = hitWithLongEngineQueue(true, Duration.ofSeconds(2));
        assertThat(on.worker().url()).isEqualTo("http://w1:8000"); // 70 vs 3: 67 > 64 and 70 > 4.5
        assertThat(on.branch()).isEqualTo("imbalanced_min_load");

        Decision off = hitWithLongEngineQueue(false, Duration.ofSeconds(2));
        assertThat(off.worker().url()).isEqualTo("http://w0:8000"); // in-flight 3 vs 3: balanced, affinity kept
        assertThat(off.branch()).isEqualTo("cache_hit");
    }

    @Test
    void staleEngineLoadIsIgnored() {
        Decision atLimit = hitWithLongEngineQueue(true, MAX_AGE);
        assertThat(atLimit.branch()).isEqualTo("imbalanced_min_load");
        Decision stale = hitWithLongEngineQueue(true, MAX_AGE.plusNanos(1));
        assertThat(stale.worker().url()).isEqualTo("http://w0:8000");
        assertThat(stale.branch()).isEqualTo("cache_hit");
    }

    @Test
    void missGoesToTheShorterEngineQueueWithBalanceEngineLoad() {
        List<Worker> w = TestWorkers.of(2);
        ManualTicker clock = new ManualTicker(5L);
        w.get(0).setEngineLoad(new EngineLoad(-1, 4, 2, -1, clock.getAsLong()));
        w.get(1).setEngineLoad(new EngineLoad(-1, 1, -1, -1, clock.getAsLong())); // waiting unknown counts 0
        CacheAwareConfig on = CacheAwareConfig.sglang().withBalanceEngineLoad(true, MAX_AGE);
        CacheAwarePolicy p = new CacheAwarePolicy(on, PolicyEnvironment.of(clock, 1));
        assertThat(p.effectiveLoad(w.get(0))).isEqualTo(6);
        assertThat(p.effectiveLoad(w.get(1))).isEqualTo(1);
        Decision d = p.select(w, text("nobody has seen this"));
        assertThat(d.worker()).isSameAs(w.get(1));
        assertThat(d.branch()).isEqualTo("cache_miss_min_load");

        CacheAwarePolicy off = new CacheAwarePolicy(CacheAwareConfig.sglang(), PolicyEnvironment.of(clock, 1));
        assertThat(off.select(w, text("nor this")).worker()).isSameAs(w.get(0)); // in-flight 0 vs 0, processed tie
    }

    @Test
    void inFlightCountsWhenItExceedsTheEngineQueueOrTheEngineNeverAnswered() {
        List<Worker> w = TestWorkers.of(3);
        ManualTicker clock = new ManualTicker(0L);
        CacheAwarePolicy p = new CacheAwarePolicy(CacheAwareConfig.sglang().withBalanceEngineLoad(true, MAX_AGE),
                PolicyEnvironment.of(clock, 1));
        load(w.get(0), 9);
        w.get(0).setEngineLoad(new EngineLoad(-1, 2, 1, -1, 0)); // the engine has not seen our 9 yet
        load(w.get(1), 4);
        w.get(1).setEngineLoad(new EngineLoad(500, -1, -1, -1, 0)); // tokens only: no queue figure
        load(w.get(2), 2);                                           // never polled
        assertThat(p.effectiveLoad(w.get(0))).isEqualTo(9);
        assertThat(p.effectiveLoad(w.get(1))).isEqualTo(4);
        assertThat(p.effectiveLoad(w.get(2))).isEqualTo(2);
    }

    @Test
    void zeroMaxAgeNeverTrustsAnEngineLoad() {
        Worker w = TestWorkers.of(1).get(0);
        w.setEngineLoad(new EngineLoad(-1, 50, 50, -1, 7));
        CacheAwarePolicy p = new CacheAwarePolicy(CacheAwareConfig.sglang().withBalanceEngineLoad(true,
                Duration.ZERO), PolicyEnvironment.of(new ManualTicker(7), 1));
        assertThat(p.effectiveLoad(w)).isZero();
    }
}
