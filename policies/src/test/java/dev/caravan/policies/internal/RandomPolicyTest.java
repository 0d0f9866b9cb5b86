package dev.caravan.policies.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.caravan.policies.Decision;
import dev.caravan.policies.PolicyEnvironment;
import dev.caravan.policies.SelectionContext;
import dev.caravan.policies.TestWorkers;
import dev.caravan.policies.Worker;

class RandomPolicyTest {

    private final SelectionContext ctx = SelectionContext.ofText("hello");

    private static Map<String, Integer> histogram(RandomPolicy p, List<Worker> w, SelectionContext ctx, int n) {
        Map<String, Integer> h = new HashMap<>();
        for (int i = 0; i < n; i++) {
            Decision d = p.select(w, ctx);
            assertThat(d.branch()).isEqualTo("uniform");
            h.merge(d.worker().id(), 1, Integer::sum);
        }
        return h;
    }

    @Test
    void spreadsUniformlyOverHealthyWorkers() {
        RandomPolicy p = new RandomPolicy(PolicyEnvironment.seeded(7));
        Map<String, Integer> h = histogram(p, TestWorkers.of(4), ctx, 4000);
        assertThat(h).containsOnlyKeys("w0", "w1", "w2", "w3");
        // expected 1000 each; binomial sd ~27, bounds at ~4 sd
        assertThat(h.values()).allSatisfy(c -> assertThat(c).isBetween(890, 1110));
    }

    @Test
    void neverPicksUnhealthyWorkers() {
        RandomPolicy p = new RandomPolicy(PolicyEnvironment.seeded(11));
        List<Worker> w = TestWorkers.of(3);
        w.get(0).setHealthy(false);
        Map<String, Integer> h = histogram(p, w, ctx, 1000);
        assertThat(h).containsOnlyKeys("w1", "w2");
        assertThat(h.get("w1")).isBetween(420, 580);
    }

    @Test
    void sameSeedSameSequence() {
        List<Worker> w = TestWorkers.of(5);
        RandomPolicy a = new RandomPolicy(PolicyEnvironment.seeded(3));
        RandomPolicy b = new RandomPolicy(PolicyEnvironment.seeded(3));
        for (int i = 0; i < 50; i++) {
            assertThat(a.select(w, ctx).worker()).isSameAs(b.select(w, ctx).worker());
        }
    }

    @Test
    void noHealthyWorkersYieldsNone() {
        RandomPolicy p = new RandomPolicy(PolicyEnvironment.seeded(1));
        List<Worker> w = TestWorkers.of(2);
        w.forEach(x -> x.setHealthy(false));
        Decision d = p.select(w, ctx);
        assertThat(d.isEmpty()).isTrue();
        assertThat(d.label()).isEqualTo("random:no_healthy_workers");
    }

    @Test
    void singleHealthyWorkerIsAlwaysChosen() {
        RandomPolicy p = new RandomPolicy(PolicyEnvironment.system());
        List<Worker> w = TestWorkers.of(1);
        for (int i = 0; i < 20; i++) {
            assertThat(p.select(w, ctx).worker()).isSameAs(w.get(0));
        }
    }
}
