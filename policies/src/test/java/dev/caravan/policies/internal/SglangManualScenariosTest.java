package dev.caravan.policies.internal;

import static dev.caravan.policies.TestWorkers.load;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.caravan.policies.Decision;
import dev.caravan.policies.ManualConfig;
import dev.caravan.policies.ManualConfig.AssignmentMode;
import dev.caravan.policies.ManualTicker;
import dev.caravan.policies.PolicyEnvironment;
import dev.caravan.policies.SelectionContext;
import dev.caravan.policies.TestWorkers;
import dev.caravan.policies.Worker;

/**
 * SGLang's manual-policy tests replayed against {@link ManualPolicy}: the {@code #[test]}s of
 * {@code src/policies/manual.rs} in {@code lightseekorg/smg} at {@code c7f9bf9f5} (smg 0.3.2, 2026-01-15, the last
 * SGLang-side release of {@code sgl-model-gateway}). Scenarios and expected outcomes are SGLang's; the code is ours.
 *
 * <p>SGLang's tests of private helpers ({@code push_bounded}, {@code find_healthy_worker}, the eviction task handle,
 * {@code last_access}) are mirrored through the behaviour those helpers produce. Time is a {@link ManualTicker} where
 * SGLang sleeps. {@code min_group} differs on purpose (docs/design/routing-core.md): SGLang counts the keys with requests in
 * flight on a worker, which its tests set directly ({@code worker_routing_key_load().increment}); we count the keys
 * remembered for a worker, so the mirrors give workers their keys by routing them while the others are unhealthy.
 */
class SglangManualScenariosTest {

    private final ManualTicker ticker = new ManualTicker();

    private ManualPolicy policy(ManualConfig cfg) {
        return new ManualPolicy(cfg, PolicyEnvironment.of(ticker, 22));
    }

    private ManualPolicy policy() {
        return policy(ManualConfig.defaults());
    }

    private static ManualConfig mode(AssignmentMode mode) {
        return ManualConfig.defaults().withAssignmentMode(mode);
    }

    private static SelectionContext key(String k) {
        return new SelectionContext(null, "", null, Map.of("x-smg-routing-key", k));
    }

    private static final SelectionContext NO_KEY = SelectionContext.ofText("");

    /** Routes {@code key} while only {@code target} is healthy, so the key is remembered for it. */
    private static void assignTo(ManualPolicy p, List<Worker> w, String key, Worker target) {
        w.forEach(x -> x.setHealthy(x == target));
        assertThat(p.select(w, key(key)).worker()).isSameAs(target);
        w.forEach(x -> x.setHealthy(true));
    }

    @Test
    void aRoutingKeyIsVacantOnceThenAlwaysHitsTheSameWorker() {
        // mirrors sglang manual.rs test_manual_consistent_routing
        List<Worker> w = TestWorkers.of(3);
        ManualPolicy p = policy();
        Decision first = p.select(w, key("user-123"));
        assertThat(first.branch()).isEqualTo("vacant");
        for (int i = 0; i < 10; i++) {
            Decision d = p.select(w, key("user-123"));
            assertThat(d.worker()).isSameAs(first.worker());
            assertThat(d.branch()).isEqualTo("occupied_hit");
        }
    }

    @Test
    void differentRoutingKeysAreEachVacantAndSpread() {
        // mirrors sglang manual.rs test_manual_different_routing_ids
        List<Worker> w = TestWorkers.of(3);
        ManualPolicy p = policy();
        Map<Worker, Integer> counts = new HashMap<>();
        for (int i = 0; i < 100; i++) {
            Decision d = p.select(w, key("user-" + i));
            assertThat(d.branch()).isEqualTo("vacant");
            counts.merge(d.worker(), 1, Integer::sum);
        }
        assertThat(counts).hasSize(3);
    }

    @Test
    void noRoutingKeyChoosesRandomlyAmongAllWorkers() {
        // mirrors sglang manual.rs test_manual_fallback_random
        List<Worker> w = TestWorkers.of(2);
        ManualPolicy p = policy();
        Map<Worker, Integer> counts = new HashMap<>();
        for (int i = 0; i < 100; i++) {
            Decision d = p.select(w, NO_KEY);
            assertThat(d.branch()).isEqualTo("no_routing_id");
            counts.merge(d.worker(), 1, Integer::sum);
        }
        assertThat(counts).hasSize(2);
        assertThat(p.routingKeys()).isZero();
    }

    @Test
    void aNewKeyGoesToTheHealthyWorkerAndStaysThere() {
        // mirrors sglang manual.rs test_manual_with_unhealthy_workers
        List<Worker> w = TestWorkers.of(2);
        w.get(0).setHealthy(false);
        ManualPolicy p = policy();
        Decision first = p.select(w, key("test-routing-id"));
        assertThat(first.worker()).isSameAs(w.get(1));
        assertThat(first.branch()).isEqualTo("vacant");
        for (int i = 0; i < 10; i++) {
            Decision d = p.select(w, key("test-routing-id"));
            assertThat(d.worker()).isSameAs(w.get(1));
            assertThat(d.branch()).isEqualTo("occupied_hit");
        }
    }

    @Test
    void noHealthyWorkerSelectsNone() {
        // mirrors sglang manual.rs test_manual_no_healthy_workers
        List<Worker> w = TestWorkers.of(1);
        w.get(0).setHealthy(false);
        Decision d = policy().select(w, key("test"));
        assertThat(d.isEmpty()).isTrue();
        assertThat(d.branch()).isEqualTo("no_healthy_workers");
    }

    @Test
    void anEmptyRoutingKeyIsNoRoutingKey() {
        // mirrors sglang manual.rs test_manual_empty_routing_id
        List<Worker> w = TestWorkers.of(2);
        ManualPolicy p = policy();
        Map<Worker, Integer> counts = new HashMap<>();
        for (int i = 0; i < 100; i++) {
            Decision d = p.select(w, key(""));
            assertThat(d.branch()).isEqualTo("no_routing_id");
            counts.merge(d.worker(), 1, Integer::sum);
        }
        assertThat(counts).hasSize(2);
    }

    @Test
    void aKeyWhoseWorkerFailsIsRemappedOnceAndSticksToTheNewWorker() {
        // mirrors sglang manual.rs test_manual_remaps_when_worker_becomes_unhealthy
        List<Worker> w = TestWorkers.of(2);
        ManualPolicy p = policy();
        Worker first = p.select(w, key("sticky-user")).worker();
        first.setHealthy(false);
        Decision remapped = p.select(w, key("sticky-user"));
        assertThat(remapped.worker()).isNotSameAs(first);
        assertThat(remapped.branch()).isEqualTo("occupied_miss");
        for (int i = 0; i < 10; i++) {
            Decision d = p.select(w, key("sticky-user"));
            assertThat(d.worker()).isSameAs(remapped.worker());
            assertThat(d.branch()).isEqualTo("occupied_hit");
        }
    }

    @Test
    void anEmptyWorkerListSelectsNone() {
        // mirrors sglang manual.rs test_manual_empty_workers
        Decision d = policy().select(List.of(), key("test"));
        assertThat(d.isEmpty()).isTrue();
        assertThat(d.branch()).isEqualTo("no_healthy_workers");
    }

    @Test
    void aSingleWorkerTakesTheKeyAndKeepsIt() {
        // mirrors sglang manual.rs test_manual_single_worker
        List<Worker> w = TestWorkers.of(1);
        ManualPolicy p = policy();
        assertThat(p.select(w, key("single-test")).branch()).isEqualTo("vacant");
        for (int i = 0; i < 10; i++) {
            Decision d = p.select(w, key("single-test"));
            assertThat(d.worker()).isSameAs(w.get(0));
            assertThat(d.branch()).isEqualTo("occupied_hit");
        }
    }

    @Test
    void aKeyReturnsToItsFirstWorkerWhenThatRecovers() {
        // mirrors sglang manual.rs test_manual_worker_recovery
        List<Worker> w = TestWorkers.of(2);
        ManualPolicy p = policy();
        Worker first = p.select(w, key("recovery-test")).worker();
        first.setHealthy(false);
        Decision second = p.select(w, key("recovery-test"));
        assertThat(second.worker()).isNotSameAs(first);
        assertThat(second.branch()).isEqualTo("occupied_miss");
        first.setHealthy(true);
        Decision after = p.select(w, key("recovery-test"));
        assertThat(after.worker()).isSameAs(first);
        assertThat(after.branch()).isEqualTo("occupied_hit");
    }

    @Test
    void aKeyRemembersAtMostTwoWorkersDroppingTheOldest() {
        // mirrors sglang manual.rs test_manual_max_candidate_workers_eviction
        List<Worker> w = TestWorkers.of(3);
        ManualPolicy p = policy();
        Worker first = p.select(w, key("eviction-test")).worker();
        first.setHealthy(false);
        Decision second = p.select(w, key("eviction-test"));
        assertThat(second.branch()).isEqualTo("occupied_miss");
        second.worker().setHealthy(false);
        Worker remaining = w.stream().filter(x -> x != first && x != second.worker()).findFirst().orElseThrow();
        Decision third = p.select(w, key("eviction-test"));
        assertThat(third.worker()).isSameAs(remaining);
        assertThat(third.branch()).isEqualTo("occupied_miss");
        first.setHealthy(true);
        Decision afterRestore = p.select(w, key("eviction-test"));
        assertThat(afterRestore.worker()).isSameAs(remaining); // the first worker was dropped from the key's two
        assertThat(afterRestore.branch()).isEqualTo("occupied_hit");
    }

    @Test
    void manualIsNamedAsSglangNamesIt() {
        // mirrors sglang manual.rs test_manual_policy_name
        assertThat(policy().name()).isEqualTo("manual");
    }

    @Test
    void aThirdRememberedWorkerPushesOutTheOldestAndKeepsTheNewerFirst() {
        // mirrors sglang manual.rs test_manual_routing_info_push_bounded through routing: [w0] -> [w0, w1] -> [w1, w2]
        List<Worker> w = TestWorkers.of(3);
        ManualPolicy p = policy();
        assignTo(p, w, "k", w.get(0));
        w.get(0).setHealthy(false);
        w.get(2).setHealthy(false);
        assertThat(p.select(w, key("k")).worker()).isSameAs(w.get(1)); // remembers [w0, w1]
        w.get(0).setHealthy(false);
        w.get(1).setHealthy(false);
        w.get(2).setHealthy(true);
        assertThat(p.select(w, key("k")).worker()).isSameAs(w.get(2)); // remembers [w1, w2]
        w.forEach(x -> x.setHealthy(true));
        assertThat(p.select(w, key("k")).worker()).isSameAs(w.get(1)); // oldest remaining first; w0 is gone
        assertThat(p.keysAssigned(w.get(0).url())).isZero();
        assertThat(p.keysAssigned(w.get(1).url())).isEqualTo(1);
        assertThat(p.keysAssigned(w.get(2).url())).isEqualTo(1);
    }

    @Test
    void theFirstHealthyRememberedWorkerWins() {
        // mirrors sglang manual.rs test_manual_find_healthy_worker_priority through routing (a key remembers two)
        List<Worker> w = TestWorkers.of(3);
        ManualPolicy p = policy();
        assignTo(p, w, "k", w.get(0));
        w.get(0).setHealthy(false);
        w.get(2).setHealthy(false);
        p.select(w, key("k")); // remembers [w0, w1]
        w.forEach(x -> x.setHealthy(true));
        assertThat(p.select(w, key("k")).worker()).isSameAs(w.get(0));
        w.get(0).setHealthy(false);
        assertThat(p.select(w, key("k")).worker()).isSameAs(w.get(1));
        w.get(1).setHealthy(false);
        Decision none = p.select(w, key("k"));
        assertThat(none.worker()).isSameAs(w.get(2));
        assertThat(none.branch()).isEqualTo("occupied_miss");
        w.get(2).setHealthy(false);
        assertThat(p.select(w, key("k")).isEmpty()).isTrue();
    }

    @Test
    void workersAreFoundByUrlAndAnUnknownUrlFindsNone() {
        // mirrors sglang manual.rs test_manual_find_worker_index_by_url
        List<Worker> w = TestWorkers.of(2);
        assertThat(ConsistentHashingPolicy.find(w, "http://w0:8000")).isSameAs(w.get(0));
        assertThat(ConsistentHashingPolicy.find(w, "http://w1:8000")).isSameAs(w.get(1));
        assertThat(ConsistentHashingPolicy.find(w, "http://w3:8000")).isNull();
    }

    @Test
    void defaultsAreASixtySecondSweepAndFourHoursIdle() {
        // mirrors sglang manual.rs test_manual_config_default
        ManualConfig d = ManualConfig.defaults();
        assertThat(d.evictionInterval()).isEqualTo(Duration.ofSeconds(60));
        assertThat(d.maxIdle()).isEqualTo(Duration.ofHours(4));
    }

    @Test
    void aZeroSweepIntervalDisablesTheSweep() {
        // mirrors sglang manual.rs test_manual_with_disabled_eviction
        ManualPolicy p = policy(new ManualConfig(Duration.ZERO, Duration.ofSeconds(3600), AssignmentMode.RANDOM));
        assertThat(p.maintenanceInterval()).isEqualTo(Duration.ZERO);
        List<Worker> w = TestWorkers.of(2);
        p.select(w, key("k"));
        ticker.advance(Duration.ofDays(1));
        p.runMaintenance();
        assertThat(p.routingKeys()).isEqualTo(1);
    }

    @Test
    void everyBranchRefreshesTheKeysLastAccess() {
        // mirrors sglang manual.rs test_manual_last_access_updates: a key touched by a hit or a miss survives a sweep
        // that would have expired it from its first access
        ManualPolicy p = policy(new ManualConfig(Duration.ofSeconds(1), Duration.ofSeconds(10), AssignmentMode.RANDOM));
        List<Worker> w = TestWorkers.of(2);
        Worker first = p.select(w, key("test-key")).worker(); // vacant at t = 0
        ticker.advance(Duration.ofSeconds(6));
        assertThat(p.select(w, key("test-key")).branch()).isEqualTo("occupied_hit"); // t = 6
        ticker.advance(Duration.ofSeconds(6));
        p.runMaintenance(); // t = 12: idle 6 s
        assertThat(p.routingKeys()).isEqualTo(1);
        first.setHealthy(false);
        assertThat(p.select(w, key("test-key")).branch()).isEqualTo("occupied_miss"); // t = 12
        ticker.advance(Duration.ofSeconds(9));
        p.runMaintenance(); // t = 21: idle 9 s
        assertThat(p.routingKeys()).isEqualTo(1);
        ticker.advance(Duration.ofSeconds(1));
        p.runMaintenance(); // t = 22: idle 10 s
        assertThat(p.routingKeys()).isZero();
    }

    @Test
    void anIdleKeyIsForgottenByTheSweep() {
        // mirrors sglang manual.rs test_manual_ttl_eviction_logic (SGLang sleeps 4 s; the ticker advances instead)
        ManualPolicy p = policy(new ManualConfig(Duration.ofSeconds(2), Duration.ofSeconds(2), AssignmentMode.RANDOM));
        p.select(TestWorkers.of(2), key("key-0"));
        assertThat(p.routingKeys()).isEqualTo(1);
        ticker.advance(Duration.ofSeconds(4));
        p.runMaintenance();
        assertThat(p.routingKeys()).isZero();
    }

    @Test
    void minGroupSpreadsNineKeysThreePerWorker() {
        // mirrors sglang manual.rs test_min_group_select_distributes_evenly
        List<Worker> w = TestWorkers.of(3);
        ManualPolicy p = policy(mode(AssignmentMode.MIN_GROUP));
        for (int i = 0; i < 9; i++) {
            assertThat(p.select(w, key("key-" + i)).branch()).isEqualTo("vacant");
        }
        for (Worker x : w) {
            assertThat(p.keysAssigned(x.url())).isEqualTo(3);
        }
    }

    @Test
    void minGroupGivesANewKeyToTheWorkerWithTheFewestKeys() {
        // mirrors sglang manual.rs test_min_group_select_prefers_worker_with_fewer_routing_keys
        List<Worker> w = TestWorkers.of(3);
        ManualPolicy p = policy(mode(AssignmentMode.MIN_GROUP));
        assignTo(p, w, "existing-1", w.get(0));
        assignTo(p, w, "existing-2", w.get(0));
        assignTo(p, w, "existing-3", w.get(1));
        assertThat(p.keysAssigned(w.get(0).url())).isEqualTo(2);
        assertThat(p.keysAssigned(w.get(1).url())).isEqualTo(1);
        assertThat(p.keysAssigned(w.get(2).url())).isZero();
        assertThat(p.select(w, key("new-key")).worker()).isSameAs(w.get(2));
    }

    @Test
    void minLoadGivesANewKeyToTheWorkerWithTheFewestRequests() {
        // mirrors sglang manual.rs test_min_load_select_prefers_worker_with_fewer_requests
        List<Worker> w = TestWorkers.of(3);
        load(w.get(0), 2);
        load(w.get(1), 1);
        assertThat(policy(mode(AssignmentMode.MIN_LOAD)).select(w, key("new-key")).worker()).isSameAs(w.get(2));
    }

    @Test
    void minGroupAssignmentIsStickyAfterwards() {
        // mirrors sglang manual.rs test_min_group_sticky_after_assignment
        List<Worker> w = TestWorkers.of(2);
        ManualPolicy p = policy(mode(AssignmentMode.MIN_GROUP));
        assignTo(p, w, "key-0", w.get(0));
        assignTo(p, w, "key-1", w.get(1));
        assignTo(p, w, "key-2", w.get(1));
        Decision first = p.select(w, key("new-key"));
        assertThat(first.worker()).isSameAs(w.get(0));
        assertThat(first.branch()).isEqualTo("vacant");
        for (int i = 0; i < 10; i++) {
            Decision d = p.select(w, key("new-key"));
            assertThat(d.worker()).isSameAs(w.get(0));
            assertThat(d.branch()).isEqualTo("occupied_hit");
        }
    }

    @Test
    void randomModeIgnoresHowManyKeysAWorkerHas() {
        // mirrors sglang manual.rs test_random_mode_does_not_consider_load
        List<Worker> w = TestWorkers.of(2);
        ManualPolicy p = policy(mode(AssignmentMode.RANDOM));
        for (String k : new String[] {"key-1", "key-2", "key-3"}) {
            assignTo(p, w, k, w.get(0));
        }
        boolean chose0 = false;
        for (int i = 0; i < 50 && !chose0; i++) {
            chose0 = p.select(w, key("test-" + i)).worker() == w.get(0);
        }
        assertThat(chose0).isTrue();
    }
}
