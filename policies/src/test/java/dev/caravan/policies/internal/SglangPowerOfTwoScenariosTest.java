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

/**
 * SGLang's power_of_two tests replayed against {@link PowerOfTwoPolicy}: the {@code #[test]}s of
 * {@code src/policies/power_of_two.rs} in {@code lightseekorg/smg} at {@code c7f9bf9f5} (smg 0.3.2, 2026-01-15, the last
 * SGLang-side release of {@code sgl-model-gateway}). Scenarios and expected outcomes are SGLang's; the code is ours.
 * SGLang's {@code update_loads(map)} (token loads from its load monitor) is our per-worker
 * {@link Worker#setEngineLoad}; a worker missing from SGLang's map is a worker without an engine load here. With two
 * workers every sample is the same pair, so those outcomes are exact; with three, the lightest wins every pair it is in.
 */
class SglangPowerOfTwoScenariosTest {

    private static final SelectionContext NO_INFO = SelectionContext.ofText("");

    private static EngineLoad tokens(long t) {
        return new EngineLoad(t, -1, -1, -1, 0);
    }

    private static PowerOfTwoPolicy policy() {
        return new PowerOfTwoPolicy(PolicyEnvironment.seeded(22));
    }

    private static Worker worker(String url, int requests) {
        Worker w = Worker.builder(url).build();
        load(w, requests);
        return w;
    }

    @Test
    void theLeastLoadedOfThreeIsChosenMostAndTheMostLoadedNever() {
        // mirrors sglang power_of_two.rs test_power_of_two_selection
        List<Worker> w = TestWorkers.of(3);
        load(w.get(0), 10);
        load(w.get(1), 5);
        PowerOfTwoPolicy p = policy();
        Map<Integer, Integer> counts = new HashMap<>();
        for (int i = 0; i < 100; i++) {
            counts.merge(w.indexOf(p.select(w, NO_INFO).worker()), 1, Integer::sum);
        }
        assertThat(counts.getOrDefault(0, 0)).isZero();
        assertThat(counts.get(2)).isGreaterThan(counts.get(1));
        assertThat(counts.get(2)).isBetween(52, 82); // in 2 of the 3 equally likely pairs
    }

    @Test
    void lowerEngineTokenLoadWinsWhenBothWorkersReportOne() {
        // mirrors sglang power_of_two.rs test_power_of_two_with_cached_loads (SGLang: > 35 of 50; every pair here)
        List<Worker> w = TestWorkers.of(2);
        w.get(0).setEngineLoad(tokens(100));
        w.get(1).setEngineLoad(tokens(10));
        PowerOfTwoPolicy p = policy();
        for (int i = 0; i < 50; i++) {
            Decision d = p.select(w, NO_INFO);
            assertThat(d.worker()).isSameAs(w.get(1));
            assertThat(d.branch()).isEqualTo("engine_token_load");
        }
    }

    @Test
    void aSingleWorkerIsAlwaysChosen() {
        // mirrors sglang power_of_two.rs test_power_of_two_single_worker
        List<Worker> w = TestWorkers.of(1);
        Decision d = policy().select(w, NO_INFO);
        assertThat(d.worker()).isSameAs(w.get(0));
        assertThat(d.branch()).isEqualTo("single_worker");
    }

    @Test
    void aWorkerWithoutATokenLoadMakesBothCompareByRequests() {
        // mirrors sglang power_of_two.rs test_reproduce_incompatible_metric_bug (worker URLs with '_', as SGLang's)
        Worker a = worker("http://worker_a:8000", 0);
        Worker b = worker("http://worker_b:8000", 5);
        a.setEngineLoad(tokens(50_000));
        Decision d = policy().select(List.of(a, b), NO_INFO);
        assertThat(d.worker()).isSameAs(a);
        assertThat(d.branch()).isEqualTo("request_count_fallback");
    }

    @Test
    void tokenLoadsWinWhenBothHaveThemAndRequestCountsOtherwise() {
        // mirrors sglang power_of_two.rs test_power_of_two_edge_cases
        PowerOfTwoPolicy p = policy();
        Worker wa = worker("http://a:8000", 10);
        Worker wb = worker("http://b:8000", 2);
        wa.setEngineLoad(tokens(1_000));
        wb.setEngineLoad(tokens(100_000));
        assertThat(p.select(List.of(wa, wb), NO_INFO).worker()).isSameAs(wa); // 1: tokens decide

        Worker wc = worker("http://c:8000", 10);
        Worker wd = worker("http://d:8000", 2);
        wc.setEngineLoad(tokens(1_000));
        assertThat(p.select(List.of(wc, wd), NO_INFO).worker()).isSameAs(wd); // 2: d has none: requests decide

        Worker we = worker("http://e:8000", 2);
        Worker wf = worker("http://f:8000", 10);
        wf.setEngineLoad(tokens(1_000));
        assertThat(p.select(List.of(we, wf), NO_INFO).worker()).isSameAs(we); // 3: e has none: requests decide

        Worker wg = worker("http://g:8000", 5);
        Worker wh = worker("http://h:8000", 3);
        assertThat(p.select(List.of(wg, wh), NO_INFO).worker()).isSameAs(wh); // 4: neither has one
    }

    @Test
    void aFailedPollCountsAsAbsentNotAsTheLightestLoad() {
        // deliberate difference (docs/design/routing-core.md): SGLang stores a failed poll as -1, which then wins every pair
        Worker failing = worker("http://failing:8000", 7);
        Worker busy = worker("http://busy:8000", 1);
        failing.setEngineLoad(tokens(-1));
        busy.setEngineLoad(tokens(5_000));
        Decision d = policy().select(List.of(failing, busy), NO_INFO);
        assertThat(d.worker()).isSameAs(busy);
        assertThat(d.branch()).isEqualTo("request_count_fallback");
    }
}
