package dev.caravan.policies.internal;

import static dev.caravan.policies.TestWorkers.load;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.caravan.policies.CacheAwareConfig;
import dev.caravan.policies.Decision;
import dev.caravan.policies.PolicyEnvironment;
import dev.caravan.policies.SelectionContext;
import dev.caravan.policies.TestWorkers;
import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerLease;
import dev.caravan.policies.tree.ApproximateRadixTree;
import dev.caravan.policies.tree.OwnerRule;

/**
 * SGLang's cache_aware tests replayed against {@link CacheAwarePolicy}: the {@code #[test]}s of
 * {@code src/policies/cache_aware.rs} and of {@code tests/routing/cache_aware_backward_compat_test.rs} in
 * {@code lightseekorg/smg} at {@code c7f9bf9f5} (smg 0.3.2, 2026-01-15, the last SGLang-side release of
 * {@code sgl-model-gateway}), plus behaviours of that revision its tests leave open. Scenarios and expected
 * outcomes are SGLang's; the code is ours. SGLang's {@code init_workers}/{@code add_worker} are our
 * {@code onWorkerAdded}, {@code remove_worker(_by_url)} our {@code onWorkerRemoved}.
 *
 * <p>Not mirrored: {@code test_cache_aware_sync_tree_operation_to_mesh},
 * {@code test_cache_aware_restore_tree_state_from_mesh}, {@code test_cache_aware_apply_remote_tree_operation} and
 * {@code test_cache_aware_multi_node_consistency} test SGLang's HA mesh replication of the tree, which Caravan does not
 * have (each gateway keeps its own trees).
 */
class SglangCacheAwareScenariosTest {

    private static SelectionContext text(String s) {
        return SelectionContext.ofText(s);
    }

    private static CacheAwarePolicy policy(CacheAwareConfig cfg, List<Worker> workers) {
        CacheAwarePolicy p = new CacheAwarePolicy(cfg, PolicyEnvironment.seeded(22));
        workers.forEach(p::onWorkerAdded);
        return p;
    }

    /** SGLang's test configurations disable the eviction thread: {@code eviction_interval_secs: 0}. */
    private static CacheAwareConfig noEviction() {
        CacheAwareConfig d = CacheAwareConfig.sglang();
        return new CacheAwareConfig(d.cacheThreshold(), d.balanceAbsThreshold(), d.balanceRelThreshold(), Duration.ZERO,
                d.maxTreeSize(), 0, false, false);
    }

    @Test
    void balancedLoadKeepsTheSameAndASimilarPromptOnOneWorker() {
        // mirrors sglang cache_aware.rs test_cache_aware_with_balanced_load
        List<Worker> w = TestWorkers.of(2);
        CacheAwarePolicy p = policy(noEviction(), w);
        Worker first = p.select(w, text("hello world")).worker();
        assertThat(p.select(w, text("hello world")).worker()).isSameAs(first);
        assertThat(p.select(w, text("hello")).worker()).isSameAs(first);
        assertThat(first).isSameAs(w.get(0)); // a cold miss goes to the least loaded, the first on a tie
    }

    @Test
    void imbalancedLoadSendsEveryRequestToTheLessLoadedWorker() {
        // mirrors sglang cache_aware.rs test_cache_aware_with_imbalanced_load
        List<Worker> w = TestWorkers.of(2);
        load(w.get(0), 20);
        CacheAwarePolicy p = policy(new CacheAwareConfig(0.5, 5, 2.0, Duration.ZERO, 10_000, 0, false, false), w);
        for (int i = 0; i < 5; i++) {
            Decision d = p.select(w, text("test"));
            assertThat(d.worker()).isSameAs(w.get(1));
            assertThat(d.branch()).isEqualTo("imbalanced_min_load");
        }
    }

    @Test
    void aRemovedUnhealthyWorkersPromptsGoToTheOtherWorker() {
        // mirrors sglang cache_aware.rs test_cache_aware_worker_removal
        List<Worker> w = TestWorkers.of(2);
        CacheAwarePolicy p = policy(noEviction(), w);
        p.select(w, text("test1"));
        p.select(w, text("test2"));
        p.onWorkerRemoved(w.get(0));
        w.get(0).setHealthy(false);
        assertThat(p.select(w, text("test1")).worker()).isSameAs(w.get(1));
    }

    @Test
    void routesWithoutAnyReplicationOfTheTree() {
        // mirrors sglang cache_aware.rs test_cache_aware_without_mesh
        List<Worker> w = TestWorkers.of(1);
        CacheAwarePolicy p = policy(noEviction(), w);
        assertThat(p.select(w, text("test request")).worker()).isSameAs(w.get(0));
    }

    @Test
    void workersWithoutAModelAndWorkersOfModelUnknownShareOneTree() {
        // mirrors sglang cache_aware_backward_compat_test.rs test_backward_compatibility_with_empty_model_id
        CacheAwareConfig cfg = new CacheAwareConfig(0.5, 2, 1.5, Duration.ZERO, 100, 0, false, false);
        Worker worker1 = Worker.builder("http://worker1:8080").apiKey("test_api_key").build();
        Worker worker2 = Worker.builder("http://worker2:8080").apiKey("test_api_key").modelId("unknown").build();
        List<Worker> workers = List.of(worker1, worker2);
        CacheAwarePolicy p = policy(cfg, workers);
        assertThat(p.treeChars()).containsOnlyKeys("unknown");
        assertThat(p.select(workers, text("test request")).worker()).isSameAs(worker1);
        p.onWorkerRemoved(worker1);
        p.onWorkerRemoved(worker2);
        assertThat(p.treeChars()).isEqualTo(Map.of("unknown", Map.of()));
    }

    @Test
    void mixedModelIdsGetOneTreeEachAndEveryListRoutes() {
        // mirrors sglang cache_aware_backward_compat_test.rs test_mixed_model_ids
        CacheAwareConfig cfg = new CacheAwareConfig(0.5, 2, 1.5, Duration.ZERO, 100, 0, false, false);
        Worker worker1 = Worker.builder("http://worker1:8080").build();
        Worker worker2 = Worker.builder("http://worker2:8080").modelId("llama-3").build();
        Worker worker3 = Worker.builder("http://worker3:8080").modelId("unknown").build();
        Worker worker4 = Worker.builder("http://worker4:8080").modelId("llama-3").build();
        CacheAwarePolicy p = policy(cfg, List.of(worker1, worker2, worker3, worker4));
        assertThat(p.treeChars()).containsOnlyKeys("unknown", "llama-3");
        assertThat(p.treeChars().get("unknown")).containsOnlyKeys(worker1.url(), worker3.url());
        assertThat(p.treeChars().get("llama-3")).containsOnlyKeys(worker2.url(), worker4.url());

        assertThat(p.select(List.of(worker1, worker3), text("test request")).worker()).isSameAs(worker1);
        assertThat(p.select(List.of(worker2, worker4), text("test request")).worker()).isSameAs(worker2);
        // a request naming no model is keyed by the first healthy candidate's model, as SGLang's
        Decision all = p.select(List.of(worker1, worker2, worker3, worker4), text("test request"));
        assertThat(all.worker()).isSameAs(worker1);
        assertThat(all.branch()).isEqualTo("cache_hit");
    }

    @Test
    void removingAWorkerByUrlPurgesItFromEveryModelsTree() {
        // mirrors sglang cache_aware_backward_compat_test.rs test_remove_worker_by_url_backward_compat
        Worker worker1 = Worker.builder("http://worker1:8080").modelId("llama-3").build();
        Worker worker2 = Worker.builder("http://worker2:8080").build();
        CacheAwarePolicy p = policy(CacheAwareConfig.sglang(), List.of(worker1, worker2));
        p.onWorkerRemoved(worker1);
        assertThat(p.treeChars().get("llama-3")).isEmpty();
        assertThat(p.select(List.of(worker2), text("test")).worker()).isSameAs(worker2);
    }

    // ---- behaviours of smg 0.3.2 its tests leave open --------------------------------------------------------------

    /** Leases held to make a worker look busy, released to balance the fleet again. */
    private static List<WorkerLease> busy(Worker w, int n) {
        List<WorkerLease> leases = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            leases.add(w.acquire());
        }
        return leases;
    }

    private static Worker replaySharedPrefixScenario(CacheAwareConfig cfg) {
        List<Worker> w = TestWorkers.of(2);
        CacheAwarePolicy p = policy(cfg, w);
        assertThat(p.select(w, text("hello world")).worker()).isSameAs(w.get(0)); // 1. w0 caches "hello world"
        List<WorkerLease> leases = busy(w.get(0), 10);
        Decision during = p.select(w, text("hello world, again")); // 2. an imbalance sends the longer prompt to w1
        assertThat(during.worker()).isSameAs(w.get(1));
        assertThat(during.branch()).isEqualTo("imbalanced_min_load");
        leases.forEach(WorkerLease::release); // 3. balanced again
        Decision after = p.select(w, text("hello world"));
        assertThat(after.branch()).isEqualTo("cache_hit");
        return after.worker();
    }

    @Test
    void aSharedPrefixGoesBackToItsFirstOwnerOnceLoadIsBalanced() {
        // SGLang (PRs 16097/16099) keeps "hello world" on the worker that first cached it
        CacheAwareConfig cfg = CacheAwareConfig.sglang().withBalance(2, 1.5);
        assertThat(replaySharedPrefixScenario(cfg).url()).isEqualTo("http://w0:8000");
    }

    @Test
    void latestOwnerOptionSendsTheSharedPrefixToTheWorkerThatLastReceivedIt() {
        // a deliberate option (--shared-prefix-owner latest): the shared prefix follows its latest worker
        CacheAwareConfig cfg = CacheAwareConfig.sglang().withBalance(2, 1.5).withSharedPrefixOwner(OwnerRule.LATEST);
        assertThat(replaySharedPrefixScenario(cfg).url()).isEqualTo("http://w1:8000");
    }

    @Test
    void aHitOnAListedButUnhealthyWorkerPurgesItAndFallsBackToTheFirstHealthyWithoutRecording() {
        // as smg 0.3.2 does it (SGLang PR 16209): a matched tenant that is not a healthy candidate is stale whatever
        // the reason, so the outcome does not depend on when health flipped
        List<Worker> w = TestWorkers.of(3);
        CacheAwarePolicy p = policy(CacheAwareConfig.sglang(), w);
        load(w.get(0), 1);
        load(w.get(1), 1);
        assertThat(p.select(w, text("system prompt")).worker()).isSameAs(w.get(2));
        w.get(2).setHealthy(false); // flipped after the router filtered the candidates
        Decision d = p.select(w, text("system prompt"));
        assertThat(d.branch()).isEqualTo("stale_tenant");
        assertThat(d.worker()).isSameAs(w.get(0));
        ApproximateRadixTree tree = p.tree("unknown").orElseThrow();
        assertThat(tree.hasTenant(w.get(2).url())).isFalse();
        assertThat(tree.prefixMatch("system prompt").matchedChars()).isZero(); // nothing recorded for w0
        assertThat(w.get(0).processed()).isZero();
    }

    @Test
    void aHitOnAWorkerMissingFromTheCandidatesIsPurgedTheSameWay() {
        // the same rule when the tenant is absent (removed, or its breaker open)
        List<Worker> w = TestWorkers.of(3);
        CacheAwarePolicy p = policy(CacheAwareConfig.sglang(), w);
        load(w.get(0), 1);
        load(w.get(1), 1);
        p.select(w, text("system prompt"));
        Decision d = p.select(w.subList(0, 2), text("system prompt"));
        assertThat(d.branch()).isEqualTo("stale_tenant");
        assertThat(d.worker()).isSameAs(w.get(0));
        assertThat(p.tree("unknown").orElseThrow().hasTenant(w.get(2).url())).isFalse();
    }
}
