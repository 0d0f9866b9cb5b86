package dev.caravan.policies.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.caravan.policies.Decision;
import dev.caravan.policies.SelectionContext;
import dev.caravan.policies.TestWorkers;
import dev.caravan.policies.Worker;

class RoundRobinPolicyTest {

    private final RoundRobinPolicy policy = new RoundRobinPolicy();
    private final SelectionContext ctx = SelectionContext.ofText("");

    private List<String> picks(List<Worker> workers, int n) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Decision d = policy.select(workers, ctx);
            out.add(d.isEmpty() ? "-" : d.worker().id());
        }
        return out;
    }

    @Test
    void cyclesStrictlyOverThreeWorkers() {
        List<Worker> w = TestWorkers.of(3);
        assertThat(picks(w, 7)).containsExactly("w0", "w1", "w2", "w0", "w1", "w2", "w0");
        assertThat(policy.select(w, ctx).label()).isEqualTo("round_robin:next_in_cycle");
    }

    @Test
    void skipsUnhealthyWorkerByIndexingTheHealthyList() {
        List<Worker> w = TestWorkers.of(3);
        w.get(1).setHealthy(false);
        assertThat(picks(w, 6)).containsExactly("w0", "w2", "w0", "w2", "w0", "w2");
    }

    @Test
    void sequenceShiftsWhenHealthChangesMidCycle() {
        List<Worker> w = TestWorkers.of(3);
        assertThat(picks(w, 2)).containsExactly("w0", "w1");
        w.get(0).setHealthy(false);
        // counter is 2, healthy = [w1, w2]: 2 % 2 = 0 -> w1, 3 % 2 = 1 -> w2
        assertThat(picks(w, 3)).containsExactly("w1", "w2", "w1");
    }

    @Test
    void allUnhealthyYieldsNoWorkerWithoutAdvancingTheCounter() {
        List<Worker> w = TestWorkers.of(3);
        w.forEach(x -> x.setHealthy(false));
        Decision d = policy.select(w, ctx);
        assertThat(d.isEmpty()).isTrue();
        assertThat(d.branch()).isEqualTo("no_healthy_workers");
        w.forEach(x -> x.setHealthy(true));
        assertThat(picks(w, 2)).containsExactly("w0", "w1");
    }

    @Test
    void emptyCandidateListYieldsNoWorker() {
        assertThat(policy.select(List.of(), ctx).branch()).isEqualTo("no_healthy_workers");
    }

    @Test
    void counterIsSharedAcrossCandidateLists() {
        List<Worker> a = TestWorkers.of(2);
        List<Worker> b = TestWorkers.of(3, "other");
        assertThat(policy.select(a, ctx).worker().id()).isEqualTo("w0");
        assertThat(policy.select(b, ctx).worker().id()).isEqualTo("w1");
        assertThat(policy.select(a, ctx).worker().id()).isEqualTo("w0");
    }

    @Test
    void resetRestartsTheCycle() {
        List<Worker> w = TestWorkers.of(3);
        picks(w, 2);
        policy.reset();
        assertThat(picks(w, 3)).containsExactly("w0", "w1", "w2");
    }

    @Test
    void doesNotTouchLoadOrProcessedCounters() {
        List<Worker> w = TestWorkers.of(2);
        picks(w, 4);
        assertThat(w).allSatisfy(x -> {
            assertThat(x.load()).isZero();
            assertThat(x.processed()).isZero();
        });
    }
}
