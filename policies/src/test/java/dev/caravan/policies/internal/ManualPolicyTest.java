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

class ManualPolicyTest {

    private final ManualTicker ticker = new ManualTicker();

    private ManualPolicy policy(ManualConfig cfg) {
        return new ManualPolicy(cfg, PolicyEnvironment.of(ticker, 17));
    }

    private static SelectionContext key(String k) {
        return new SelectionContext(null, "", null, Map.of("x-smg-routing-key", k));
    }

    private static final SelectionContext NO_KEY = SelectionContext.ofText("hi");

    @Test
    void sameKeyIsVacantOnceThenStaysOnItsWorker() {
        List<Worker> w = TestWorkers.of(3);
        ManualPolicy p = policy(ManualConfig.defaults());
        Decision first = p.select(w, key("session-1"));
        assertThat(first.label()).isEqualTo("manual:vacant");
        for (int i = 0; i < 10; i++) {
            Decision d = p.select(w, key("session-1"));
            assertThat(d.branch()).isEqualTo("occupied_hit");
            assertThat(d.worker()).isSameAs(first.worker());
        }
        assertThat(p.routingKeys()).isEqualTo(1);
    }

    @Test
    void noKeySpreadsRandomlyAndRemembersNothing() {
        List<Worker> w = TestWorkers.of(3);
        ManualPolicy p = policy(ManualConfig.defaults());
        Map<String, Integer> h = new HashMap<>();
        for (int i = 0; i < 300; i++) {
            Decision d = p.select(w, NO_KEY);
            assertThat(d.branch()).isEqualTo("no_routing_id");
            h.merge(d.worker().id(), 1, Integer::sum);
        }
        assertThat(h.values()).allSatisfy(c -> assertThat(c).isBetween(60, 140));
        assertThat(p.routingKeys()).isZero();
    }

    @Test
    void failsOverStaysOnTheNewWorkerAndReturnsOnRecovery() {
        List<Worker> w = TestWorkers.of(3);
        ManualPolicy p = policy(ManualConfig.defaults());
        Worker original = p.select(w, key("k")).worker();
        original.setHealthy(false);
        Decision miss = p.select(w, key("k"));
        assertThat(miss.branch()).isEqualTo("occupied_miss");
        assertThat(miss.worker()).isNotSameAs(original);
        Decision stuck = p.select(w, key("k"));
        assertThat(stuck.branch()).isEqualTo("occupied_hit");
        assertThat(stuck.worker()).isSameAs(miss.worker());
        original.setHealthy(true);
        Decision back = p.select(w, key("k"));
        assertThat(back.branch()).isEqualTo("occupied_hit");
        assertThat(back.worker()).isSameAs(original);
    }

    @Test
    void keepsAtMostTwoCandidatesDroppingTheOldest() {
        List<Worker> w = TestWorkers.of(3);
        ManualPolicy p = new ManualPolicy(ManualConfig.defaults().withAssignmentMode(AssignmentMode.MIN_LOAD),
                PolicyEnvironment.of(ticker, 1));
        load(w.get(1), 1);
        load(w.get(2), 2);
        assertThat(p.select(w, key("k")).worker()).isSameAs(w.get(0));
        w.get(0).setHealthy(false);
        assertThat(p.select(w, key("k")).worker()).isSameAs(w.get(1)); // [w0, w1]
        w.get(1).setHealthy(false);
        assertThat(p.select(w, key("k")).worker()).isSameAs(w.get(2)); // [w1, w2]: w0 dropped
        w.get(0).setHealthy(true);
        w.get(1).setHealthy(true);
        // w0 is no longer remembered: the first remembered healthy worker is w1
        Decision d = p.select(w, key("k"));
        assertThat(d.branch()).isEqualTo("occupied_hit");
        assertThat(d.worker()).isSameAs(w.get(1));
        assertThat(p.keysAssigned(w.get(0).url())).isZero();
        assertThat(p.keysAssigned(w.get(1).url())).isEqualTo(1);
        assertThat(p.keysAssigned(w.get(2).url())).isEqualTo(1);
    }

    @Test
    void workerMissingFromCandidatesCountsAsUnusable() {
        List<Worker> w = TestWorkers.of(2);
        ManualPolicy p = policy(ManualConfig.defaults());
        Worker home = p.select(w, key("k")).worker();
        Worker other = w.get(0) == home ? w.get(1) : w.get(0);
        Decision d = p.select(List.of(other), key("k"));
        assertThat(d.branch()).isEqualTo("occupied_miss");
        assertThat(d.worker()).isSameAs(other);
    }

    @Test
    void addingWorkersNeverMovesExistingKeys() {
        List<Worker> three = TestWorkers.of(3);
        ManualPolicy p = policy(ManualConfig.defaults());
        Map<String, Worker> home = new HashMap<>();
        for (int i = 0; i < 30; i++) {
            home.put("k" + i, p.select(three.subList(0, 2), key("k" + i)).worker());
        }
        for (int i = 0; i < 30; i++) {
            assertThat(p.select(three, key("k" + i)).worker()).isSameAs(home.get("k" + i));
        }
    }

    @Test
    void minGroupSpreadsNewKeysEvenlyAndKeepsThemSticky() {
        List<Worker> w = TestWorkers.of(3);
        ManualPolicy p = policy(ManualConfig.defaults().withAssignmentMode(AssignmentMode.MIN_GROUP));
        Map<String, Worker> home = new HashMap<>();
        for (int i = 0; i < 9; i++) {
            home.put("k" + i, p.select(w, key("k" + i)).worker());
        }
        for (Worker x : w) {
            assertThat(p.keysAssigned(x.url())).isEqualTo(3);
        }
        for (int i = 0; i < 9; i++) {
            assertThat(p.select(w, key("k" + i)).worker()).isSameAs(home.get("k" + i));
        }
    }

    @Test
    void minGroupPrefersTheWorkerWithFewestKeys() {
        List<Worker> w = TestWorkers.of(2);
        ManualPolicy p = policy(ManualConfig.defaults().withAssignmentMode(AssignmentMode.MIN_GROUP));
        Worker first = p.select(w, key("a")).worker();
        Worker second = p.select(w, key("b")).worker();
        assertThat(second).isNotSameAs(first);
    }

    @Test
    void minLoadPrefersTheWorkerWithFewerRequestsInFlight() {
        List<Worker> w = TestWorkers.of(3);
        load(w.get(0), 4);
        load(w.get(2), 2);
        ManualPolicy p = policy(ManualConfig.defaults().withAssignmentMode(AssignmentMode.MIN_LOAD));
        for (int i = 0; i < 5; i++) {
            assertThat(p.select(w, key("new-" + i)).worker()).isSameAs(w.get(1));
        }
    }

    @Test
    void minLoadBreaksTiesRandomly() {
        List<Worker> w = TestWorkers.of(2);
        ManualPolicy p = policy(ManualConfig.defaults().withAssignmentMode(AssignmentMode.MIN_LOAD));
        Map<String, Integer> h = new HashMap<>();
        for (int i = 0; i < 400; i++) {
            h.merge(p.select(w, key("t" + i)).worker().id(), 1, Integer::sum);
        }
        assertThat(h.get("w0")).isBetween(150, 250);
    }

    @Test
    void idleKeysAreForgottenAfterMaxIdle() {
        ManualConfig cfg = new ManualConfig(Duration.ofSeconds(2), Duration.ofSeconds(2), AssignmentMode.RANDOM);
        ManualPolicy p = policy(cfg);
        List<Worker> w = TestWorkers.of(2);
        p.select(w, key("k"));
        assertThat(p.routingKeys()).isEqualTo(1);
        assertThat(p.maintenanceInterval()).isEqualTo(Duration.ofSeconds(2));
        ticker.advance(Duration.ofSeconds(1));
        p.runMaintenance();
        assertThat(p.routingKeys()).isEqualTo(1);
        ticker.advance(Duration.ofSeconds(3));
        p.runMaintenance();
        assertThat(p.routingKeys()).isZero();
        assertThat(p.keysAssigned(w.get(0).url()) + p.keysAssigned(w.get(1).url())).isZero();
        assertThat(p.select(w, key("k")).branch()).isEqualTo("vacant");
    }

    @Test
    void accessRefreshesTheIdleClock() {
        ManualPolicy p = policy(new ManualConfig(Duration.ofSeconds(1), Duration.ofSeconds(10),
                AssignmentMode.RANDOM));
        List<Worker> w = TestWorkers.of(2);
        p.select(w, key("k"));
        ticker.advance(Duration.ofSeconds(9));
        p.select(w, key("k"));
        ticker.advance(Duration.ofSeconds(9));
        p.runMaintenance();
        assertThat(p.routingKeys()).isEqualTo(1);
        ticker.advance(Duration.ofSeconds(1));
        p.runMaintenance(); // idle exactly 10 s: >= max idle
        assertThat(p.routingKeys()).isZero();
    }

    @Test
    void ttlIsDisabledWhenIntervalOrIdleIsZero() {
        ManualPolicy p = policy(new ManualConfig(Duration.ZERO, Duration.ofSeconds(1), AssignmentMode.RANDOM));
        assertThat(p.maintenanceInterval()).isEqualTo(Duration.ZERO);
        p.select(TestWorkers.of(1), key("k"));
        ticker.advance(Duration.ofDays(1));
        p.runMaintenance();
        assertThat(p.routingKeys()).isEqualTo(1);
    }

    @Test
    void noHealthyWorkersYieldsNone() {
        List<Worker> w = TestWorkers.of(2);
        w.forEach(x -> x.setHealthy(false));
        ManualPolicy p = policy(ManualConfig.defaults());
        assertThat(p.select(w, key("k")).branch()).isEqualTo("no_healthy_workers");
        assertThat(p.select(w, NO_KEY).isEmpty()).isTrue();
        assertThat(p.routingKeys()).isZero();
    }

    @Test
    void resetForgetsEveryKey() {
        ManualPolicy p = policy(ManualConfig.defaults());
        p.select(TestWorkers.of(2), key("k"));
        p.reset();
        assertThat(p.routingKeys()).isZero();
    }
}
