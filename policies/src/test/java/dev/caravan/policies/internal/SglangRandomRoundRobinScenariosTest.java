package dev.caravan.policies.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.caravan.policies.Decision;
import dev.caravan.policies.LoadBalancingPolicy;
import dev.caravan.policies.PolicyEnvironment;
import dev.caravan.policies.SelectionContext;
import dev.caravan.policies.TestWorkers;
import dev.caravan.policies.Worker;

/**
 * SGLang's tests of its simplest policies and of the shared healthy filter, replayed against ours: the {@code #[test]}s
 * of {@code src/policies/random.rs}, {@code src/policies/round_robin.rs} and {@code src/policies/mod.rs} in
 * {@code lightseekorg/smg} at {@code c7f9bf9f5} (smg 0.3.2, 2026-01-15, the last SGLang-side release of
 * {@code sgl-model-gateway}). Scenarios and expected outcomes are SGLang's; the code is ours. Random choices use a
 * seeded generator, so "every worker is chosen" is asserted on an exact, reproducible sequence.
 */
class SglangRandomRoundRobinScenariosTest {

    private static final SelectionContext NO_INFO = SelectionContext.ofText("");

    private static List<Integer> picks(LoadBalancingPolicy p, List<Worker> w, int n) {
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Decision d = p.select(w, NO_INFO);
            out.add(d.isEmpty() ? -1 : w.indexOf(d.worker()));
        }
        return out;
    }

    private static Map<Integer, Integer> histogram(List<Integer> picks) {
        Map<Integer, Integer> counts = new HashMap<>();
        picks.forEach(i -> counts.merge(i, 1, Integer::sum));
        return counts;
    }

    @Test
    void randomChoosesEveryOneOfThreeWorkers() {
        // mirrors sglang random.rs test_random_selection
        Map<Integer, Integer> counts = histogram(picks(new RandomPolicy(PolicyEnvironment.seeded(22)),
                TestWorkers.of(3), 100));
        assertThat(counts).containsOnlyKeys(0, 1, 2);
        assertThat(counts.values()).allSatisfy(c -> assertThat(c).isBetween(20, 47)); // 100/3 within ±4 sigma
    }

    @Test
    void randomOnlyChoosesTheHealthyWorker() {
        // mirrors sglang random.rs test_random_with_unhealthy_workers
        List<Worker> w = TestWorkers.of(2);
        w.get(0).setHealthy(false);
        assertThat(picks(new RandomPolicy(PolicyEnvironment.seeded(22)), w, 10)).containsOnly(1);
    }

    @Test
    void randomWithNoHealthyWorkerChoosesNone() {
        // mirrors sglang random.rs test_random_no_healthy_workers
        List<Worker> w = TestWorkers.of(1);
        w.get(0).setHealthy(false);
        Decision d = new RandomPolicy(PolicyEnvironment.seeded(22)).select(w, NO_INFO);
        assertThat(d.isEmpty()).isTrue();
        assertThat(d.branch()).isEqualTo("no_healthy_workers");
    }

    @Test
    void roundRobinCyclesInOrder() {
        // mirrors sglang round_robin.rs test_round_robin_selection
        assertThat(picks(new RoundRobinPolicy(), TestWorkers.of(3), 5)).containsExactly(0, 1, 2, 0, 1);
    }

    @Test
    void roundRobinSkipsTheUnhealthyWorker() {
        // mirrors sglang round_robin.rs test_round_robin_with_unhealthy_workers
        List<Worker> w = TestWorkers.of(3);
        w.get(1).setHealthy(false);
        assertThat(picks(new RoundRobinPolicy(), w, 4)).containsExactly(0, 2, 0, 2);
    }

    @Test
    void roundRobinStartsOverAfterReset() {
        // mirrors sglang round_robin.rs test_round_robin_reset
        RoundRobinPolicy p = new RoundRobinPolicy();
        List<Worker> w = TestWorkers.of(2);
        assertThat(picks(p, w, 2)).containsExactly(0, 1);
        p.reset();
        assertThat(picks(p, w, 1)).containsExactly(0);
    }

    @Test
    void theHealthyFilterKeepsHealthyWorkersInOrder() {
        // mirrors sglang mod.rs test_get_healthy_worker_indices
        List<Worker> w = TestWorkers.of(3);
        assertThat(HealthyWorkers.of(w)).containsExactlyElementsOf(w);
        w.get(1).setHealthy(false);
        assertThat(HealthyWorkers.of(w)).containsExactly(w.get(0), w.get(2));
        w.forEach(x -> x.setHealthy(false));
        assertThat(HealthyWorkers.of(w)).isEmpty();
    }
}
