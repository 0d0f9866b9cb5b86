package dev.caravan.policies.internal;

import static dev.caravan.policies.TestWorkers.load;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.caravan.policies.Decision;
import dev.caravan.policies.EngineLoad;
import dev.caravan.policies.PolicyEnvironment;
import dev.caravan.policies.SelectionContext;
import dev.caravan.policies.TestWorkers;
import dev.caravan.policies.Worker;

class PowerOfTwoPolicyTest {

    private final SelectionContext ctx = SelectionContext.ofText("");

    private static EngineLoad tokens(long t) {
        return new EngineLoad(t, -1, -1, -1, 0);
    }

    private static Map<String, Integer> run(PowerOfTwoPolicy p, List<Worker> w, int n, String expectBranch,
                                            SelectionContext ctx) {
        Map<String, Integer> h = new HashMap<>();
        for (int i = 0; i < n; i++) {
            Decision d = p.select(w, ctx);
            assertThat(d.branch()).isEqualTo(expectBranch);
            h.merge(d.worker().id(), 1, Integer::sum);
        }
        return h;
    }

    @Test
    void lowerEngineTokenLoadWinsEveryPairItIsIn() {
        List<Worker> w = TestWorkers.of(2);
        w.get(0).setEngineLoad(tokens(10_000));
        w.get(1).setEngineLoad(tokens(100));
        PowerOfTwoPolicy p = new PowerOfTwoPolicy(PolicyEnvironment.seeded(1));
        assertThat(run(p, w, 50, "engine_token_load", ctx)).containsExactly(Map.entry("w1", 50));
    }

    @Test
    void withThreeWorkersTheLightestWinsAboutTwoThirds() {
        List<Worker> w = TestWorkers.of(3);
        w.get(0).setEngineLoad(tokens(500));
        w.get(1).setEngineLoad(tokens(10));
        w.get(2).setEngineLoad(tokens(900));
        PowerOfTwoPolicy p = new PowerOfTwoPolicy(PolicyEnvironment.seeded(2));
        Map<String, Integer> h = run(p, w, 3000, "engine_token_load", ctx);
        // w1 is in 2 of 3 equally likely pairs; w0 wins the {w0,w2} pair; w2 never wins.
        assertThat(h.get("w1")).isBetween(1900, 2100);
        assertThat(h.get("w0")).isBetween(900, 1100);
        assertThat(h).doesNotContainKey("w2");
    }

    @Test
    void missingTokenDataOnEitherSampleFallsBackToRequestCountsForBoth() {
        List<Worker> w = TestWorkers.of(2);
        w.get(0).setEngineLoad(tokens(1)); // far lighter by tokens...
        w.get(1).setEngineLoad(null);      // ...but w1 was never polled
        load(w.get(0), 5);
        load(w.get(1), 1);
        PowerOfTwoPolicy p = new PowerOfTwoPolicy(PolicyEnvironment.seeded(3));
        assertThat(run(p, w, 40, "request_count_fallback", ctx)).containsExactly(Map.entry("w1", 40));
    }

    @Test
    void failedPollCountsAsAbsentNotAsLeastLoaded() {
        List<Worker> w = TestWorkers.of(2);
        w.get(0).setEngineLoad(tokens(-1)); // SGLang would compare -1 and always pick this failing engine
        w.get(1).setEngineLoad(tokens(50));
        load(w.get(0), 3);
        PowerOfTwoPolicy p = new PowerOfTwoPolicy(PolicyEnvironment.seeded(4));
        assertThat(run(p, w, 40, "request_count_fallback", ctx)).containsExactly(Map.entry("w1", 40));
    }

    @Test
    void tieGoesToTheFirstSampleSoEqualLoadsSpreadEvenly() {
        List<Worker> w = TestWorkers.of(2);
        PowerOfTwoPolicy p = new PowerOfTwoPolicy(PolicyEnvironment.seeded(5));
        Map<String, Integer> h = run(p, w, 2000, "request_count_fallback", ctx);
        assertThat(h.get("w0")).isBetween(880, 1120);
        assertThat(h.get("w1")).isBetween(880, 1120);
    }

    @Test
    void samplesAreAlwaysDistinct() {
        List<Worker> w = TestWorkers.of(2);
        load(w.get(0), 1);
        PowerOfTwoPolicy p = new PowerOfTwoPolicy(PolicyEnvironment.seeded(6));
        // were the two samples ever the same worker, w0 (heavier) would sometimes be returned
        assertThat(run(p, w, 200, "request_count_fallback", ctx)).containsExactly(Map.entry("w1", 200));
    }

    @Test
    void singleHealthyWorkerIsAlwaysChosen() {
        List<Worker> w = TestWorkers.of(3);
        w.get(0).setHealthy(false);
        w.get(2).setHealthy(false);
        PowerOfTwoPolicy p = new PowerOfTwoPolicy(PolicyEnvironment.seeded(7));
        assertThat(run(p, w, 10, "single_worker", ctx)).containsExactly(Map.entry("w1", 10));
    }

    @Test
    void unhealthyWorkersAreNeverSampled() {
        List<Worker> w = TestWorkers.of(3);
        w.get(1).setHealthy(false);
        load(w.get(0), 1);
        load(w.get(2), 2);
        PowerOfTwoPolicy p = new PowerOfTwoPolicy(PolicyEnvironment.seeded(8));
        assertThat(run(p, w, 30, "request_count_fallback", ctx)).containsExactly(Map.entry("w0", 30));
    }

    @Test
    void noHealthyWorkersYieldsNone() {
        List<Worker> w = TestWorkers.of(2);
        w.forEach(x -> x.setHealthy(false));
        Decision d = new PowerOfTwoPolicy(PolicyEnvironment.seeded(9)).select(w, ctx);
        assertThat(d.isEmpty()).isTrue();
        assertThat(d.label()).isEqualTo("power_of_two:no_healthy_workers");
    }

    @Test
    void bumpsProcessedOnTheWinner() {
        List<Worker> w = TestWorkers.of(2);
        load(w.get(1), 1);
        PowerOfTwoPolicy p = new PowerOfTwoPolicy(PolicyEnvironment.seeded(10));
        run(p, w, 5, "request_count_fallback", ctx);
        assertThat(w.get(0).processed()).isEqualTo(5);
        assertThat(w.get(1).processed()).isZero();
    }
}
