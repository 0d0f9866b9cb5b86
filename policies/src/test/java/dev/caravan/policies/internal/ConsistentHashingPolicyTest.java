package dev.caravan.policies.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

import dev.caravan.policies.Decision;
import dev.caravan.policies.PolicyEnvironment;
import dev.caravan.policies.SelectionContext;
import dev.caravan.policies.TestWorkers;
import dev.caravan.policies.Worker;

class ConsistentHashingPolicyTest {

    private final ConsistentHashingPolicy policy = new ConsistentHashingPolicy(PolicyEnvironment.seeded(42));

    private static SelectionContext headers(Map<String, String> h) {
        return new SelectionContext(null, "", null, h);
    }

    private static SelectionContext key(String k) {
        return headers(Map.of("x-smg-routing-key", k));
    }

    @Test
    void sameRoutingKeyAlwaysReachesTheSameWorker() {
        List<Worker> w = TestWorkers.of(3);
        Decision first = policy.select(w, key("user-123"));
        assertThat(first.branch()).isEqualTo("routing_key_hit");
        for (int i = 0; i < 10; i++) {
            assertThat(policy.select(w, key("user-123")).worker()).isSameAs(first.worker());
        }
    }

    @Test
    void differentKeysUseSeveralWorkers() {
        List<Worker> w = TestWorkers.of(3);
        Set<Worker> used = new HashSet<>();
        for (int i = 0; i < 100; i++) {
            used.add(policy.select(w, key("user-" + i)).worker());
        }
        assertThat(used).hasSize(3);
    }

    @Test
    void targetWorkerHeaderPicksThatIndex() {
        List<Worker> w = TestWorkers.of(2);
        Decision d = policy.select(w, headers(Map.of("x-smg-target-worker", "1")));
        assertThat(d.worker()).isSameAs(w.get(1));
        assertThat(d.label()).isEqualTo("consistent_hashing:target_worker_hit");
    }

    @Test
    void targetWorkerOutOfRangeYieldsNoWorker() {
        Decision d = policy.select(TestWorkers.of(3), headers(Map.of("x-smg-target-worker", "5")));
        assertThat(d.isEmpty()).isTrue();
        assertThat(d.branch()).isEqualTo("target_worker_miss");
    }

    @Test
    void unhealthyTargetWorkerYieldsNoWorkerRatherThanAFallback() {
        List<Worker> w = TestWorkers.of(2);
        w.get(1).setHealthy(false);
        Decision d = policy.select(w, headers(Map.of("x-smg-target-worker", "1")));
        assertThat(d.isEmpty()).isTrue();
        assertThat(d.branch()).isEqualTo("target_worker_miss");
    }

    @Test
    void unparsableOrNegativeTargetIsAMiss() {
        List<Worker> w = TestWorkers.of(2);
        assertThat(policy.select(w, headers(Map.of("x-smg-target-worker", "one"))).branch())
                .isEqualTo("target_worker_miss");
        assertThat(policy.select(w, headers(Map.of("x-smg-target-worker", "-1"))).branch())
                .isEqualTo("target_worker_miss");
    }

    @Test
    void targetWorkerWinsOverRoutingKey() {
        List<Worker> w = TestWorkers.of(2);
        Decision d = policy.select(w, headers(Map.of("x-smg-target-worker", "1", "x-smg-routing-key", "k")));
        assertThat(d.worker()).isSameAs(w.get(1));
        assertThat(d.branch()).isEqualTo("target_worker_hit");
    }

    @Test
    void implicitKeysAreUsedInPriorityOrder() {
        List<Worker> w = TestWorkers.of(4);
        Worker byAuth = policy.select(w, headers(Map.of("authorization", "Bearer abc"))).worker();
        Worker byAuthWithOthers = policy.select(w, headers(Map.of("authorization", "Bearer abc",
                "x-forwarded-for", "10.0.0.1", "cookie", "s=1"))).worker();
        assertThat(byAuthWithOthers).isSameAs(byAuth);
        assertThat(policy.select(w, headers(Map.of("authorization", "Bearer abc"))).branch())
                .isEqualTo("routing_key_hit");
        Worker byXff = policy.select(w, headers(Map.of("x-forwarded-for", "10.0.0.1", "cookie", "s=1"))).worker();
        assertThat(policy.select(w, headers(Map.of("x-forwarded-for", "10.0.0.1"))).worker()).isSameAs(byXff);
        Worker byCookie = policy.select(w, headers(Map.of("cookie", "s=1"))).worker();
        assertThat(policy.select(w, key("s=1")).worker()).isSameAs(byCookie); // same key, same ring position
    }

    @Test
    void emptyHeaderValuesCountAsAbsent() {
        List<Worker> w = TestWorkers.of(3);
        Decision d = policy.select(w, headers(Map.of("x-smg-routing-key", "", "authorization", "",
                "cookie", "c=2")));
        assertThat(d.worker()).isSameAs(policy.select(w, key("c=2")).worker());
    }

    @Test
    void noKeyFallsBackToRandomHealthyWorkers() {
        List<Worker> w = TestWorkers.of(3);
        Map<String, Integer> h = new HashMap<>();
        for (int i = 0; i < 300; i++) {
            Decision d = policy.select(w, headers(Map.of()));
            assertThat(d.branch()).isEqualTo("random_fallback");
            h.merge(d.worker().id(), 1, Integer::sum);
        }
        assertThat(h.values()).allSatisfy(c -> assertThat(c).isBetween(60, 140));
    }

    @Test
    void failedWorkersKeysMoveAndComeBackOnRecovery() {
        List<Worker> w = TestWorkers.of(4);
        Map<String, Worker> before = new HashMap<>();
        for (int i = 0; i < 100; i++) {
            before.put("user-" + i, policy.select(w, key("user-" + i)).worker());
        }
        w.get(1).setHealthy(false);
        int moved = 0;
        for (int i = 0; i < 100; i++) {
            Worker now = policy.select(w, key("user-" + i)).worker();
            assertThat(now).isNotSameAs(w.get(1));
            if (before.get("user-" + i) != w.get(1)) {
                assertThat(now).isSameAs(before.get("user-" + i));
            } else {
                moved++;
            }
        }
        assertThat(moved).isBetween(10, 45);
        w.get(1).setHealthy(true);
        for (int i = 0; i < 100; i++) {
            assertThat(policy.select(w, key("user-" + i)).worker()).isSameAs(before.get("user-" + i));
        }
    }

    @Test
    void aCandidateFilteredOutByTheRouterIsSkippedLikeAnUnhealthyOne() {
        List<Worker> w = TestWorkers.of(3);
        policy.onWorkerAdded(w.get(0));
        policy.onWorkerAdded(w.get(1));
        policy.onWorkerAdded(w.get(2));
        for (int i = 0; i < 50; i++) {
            Worker home = policy.select(w, key("k" + i)).worker();
            List<Worker> without = w.stream().filter(x -> x != home).toList();
            Worker other = policy.select(without, key("k" + i)).worker();
            w.forEach(x -> x.setHealthy(x != home));
            assertThat(policy.select(w, key("k" + i)).worker()).isSameAs(other);
            w.forEach(x -> x.setHealthy(true));
        }
    }

    @Test
    void noHealthyWorkersYieldsNoneOnEveryPath() {
        List<Worker> w = TestWorkers.of(1);
        w.get(0).setHealthy(false);
        assertThat(policy.select(w, key("test")).branch()).isEqualTo("no_healthy_workers");
        assertThat(policy.select(w, headers(Map.of())).branch()).isEqualTo("no_healthy_workers");
        assertThat(policy.select(List.of(), headers(Map.of())).branch()).isEqualTo("no_healthy_workers");
    }

    @Test
    void removedWorkerLeavesTheRing() {
        List<Worker> w = TestWorkers.of(3);
        w.forEach(policy::onWorkerAdded);
        Worker home = policy.select(w, key("sticky")).worker();
        policy.onWorkerRemoved(home);
        List<Worker> rest = w.stream().filter(x -> x != home).toList();
        Worker next = policy.select(rest, key("sticky")).worker();
        assertThat(next).isNotSameAs(home);
        assertThat(policy.select(rest, key("sticky")).worker()).isSameAs(next);
    }
}
