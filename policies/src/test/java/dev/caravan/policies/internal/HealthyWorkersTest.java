package dev.caravan.policies.internal;

import static dev.caravan.policies.TestWorkers.load;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;

import dev.caravan.policies.TestWorkers;
import dev.caravan.policies.Worker;

class HealthyWorkersTest {

    @Test
    void dropsUnhealthyWorkersKeepingOrder() {
        List<Worker> w = TestWorkers.of(3);
        w.get(1).setHealthy(false);
        assertThat(HealthyWorkers.of(w)).containsExactly(w.get(0), w.get(2));
    }

    @Test
    void dropsEveryUnhealthyWorkerWhereverItIs() {
        List<Worker> w = TestWorkers.of(5);
        w.get(0).setHealthy(false);
        w.get(3).setHealthy(false);
        w.get(4).setHealthy(false);
        assertThat(HealthyWorkers.of(w)).containsExactly(w.get(1), w.get(2));
    }

    @Test
    void returnsTheSameListWhenAllAreHealthy() {
        List<Worker> w = TestWorkers.of(3);
        assertThat(HealthyWorkers.of(w)).isSameAs(w);
    }

    @Test
    void minLoadKeepsTheFirstOfEqualMinima() {
        List<Worker> w = TestWorkers.of(4);
        load(w.get(0), 2);
        load(w.get(1), 1);
        load(w.get(3), 1);
        load(w.get(2), 3);
        assertThat(HealthyWorkers.minLoad(w)).isSameAs(w.get(1));
    }
}
