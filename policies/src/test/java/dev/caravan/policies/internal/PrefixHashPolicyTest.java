package dev.caravan.policies.internal;

import static dev.caravan.policies.TestWorkers.load;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

import dev.caravan.policies.Decision;
import dev.caravan.policies.PrefixHashConfig;
import dev.caravan.policies.SelectionContext;
import dev.caravan.policies.TestWorkers;
import dev.caravan.policies.Worker;

class PrefixHashPolicyTest {

    private final PrefixHashPolicy policy = new PrefixHashPolicy(PrefixHashConfig.defaults());

    private static SelectionContext tokens(int... t) {
        return new SelectionContext(null, "", t, Map.of());
    }

    @Test
    void sameTokensAlwaysReachTheSameWorker() {
        List<Worker> w = TestWorkers.of(3);
        Decision first = policy.select(w, tokens(1, 2, 3, 4, 5, 6, 7, 8, 9, 10));
        assertThat(first.branch()).isEqualTo("ring_hit");
        for (int i = 0; i < 10; i++) {
            assertThat(policy.select(w, tokens(1, 2, 3, 4, 5, 6, 7, 8, 9, 10)).worker()).isSameAs(first.worker());
        }
    }

    @Test
    void differentPrefixesSpreadOverWorkers() {
        List<Worker> w = TestWorkers.of(3);
        Set<Worker> used = new HashSet<>();
        for (int i = 0; i < 100; i++) {
            used.add(policy.select(w, tokens(i, i + 1, i + 2, i + 3)).worker());
        }
        assertThat(used).hasSize(3);
    }

    @Test
    void onlyTheFirstPrefixTokenCountTokensMatter() {
        PrefixHashPolicy five = new PrefixHashPolicy(new PrefixHashConfig(5, 1.25));
        List<Worker> w = TestWorkers.of(3);
        for (int i = 0; i < 30; i++) {
            Worker a = five.select(w, tokens(i, 2, 3, 4, 5, 100, 200, 300)).worker();
            Worker b = five.select(w, tokens(i, 2, 3, 4, 5, 999, 888, 777)).worker();
            assertThat(b).isSameAs(a);
        }
    }

    @Test
    void noTokensYieldsNoWorker() {
        List<Worker> w = TestWorkers.of(1);
        Decision none = policy.select(w, new SelectionContext(null, "text only", null, Map.of()));
        assertThat(none.isEmpty()).isTrue();
        assertThat(none.label()).isEqualTo("prefix_hash:no_tokens");
        assertThat(policy.select(w, tokens()).branch()).isEqualTo("no_tokens");
    }

    @Test
    void noHealthyWorkersYieldsNone() {
        List<Worker> w = TestWorkers.of(1);
        w.get(0).setHealthy(false);
        assertThat(policy.select(w, tokens(1, 2, 3)).branch()).isEqualTo("no_healthy_workers");
        assertThat(policy.select(List.of(), tokens(1, 2, 3)).branch()).isEqualTo("no_healthy_workers");
    }

    @Test
    void loadOkUsesTheMeanIncludingThisRequestTimesTheFactor() {
        // total 100 over 4 workers: (101 / 4) * 1.25 = 31.56
        assertThat(policy.loadOk(30, 100, 4)).isTrue();
        assertThat(policy.loadOk(31, 100, 4)).isTrue();
        assertThat(policy.loadOk(32, 100, 4)).isFalse();
        assertThat(policy.loadOk(35, 100, 4)).isFalse();
        assertThat(policy.loadOk(0, 0, 4)).isTrue();
        assertThat(policy.loadOk(100, 0, 0)).isTrue();
    }

    @Test
    void overloadedRingWorkerGivesWayToTheLeastLoadedAcceptableOne() {
        List<Worker> w = TestWorkers.of(4);
        Worker home = policy.select(w, tokens(7, 7, 7)).worker();
        load(home, 40);
        Worker light = w.stream().filter(x -> x != home).findFirst().orElseThrow();
        w.stream().filter(x -> x != home && x != light).forEach(x -> load(x, 5));
        load(light, 2);
        Decision d = policy.select(w, tokens(7, 7, 7));
        assertThat(d.branch()).isEqualTo("load_balance_walk");
        assertThat(d.worker()).isSameAs(light);
    }

    @Test
    void whenNoWorkerIsAcceptableTheRingWorkerIsKept() {
        PrefixHashPolicy strict = new PrefixHashPolicy(new PrefixHashConfig(256, 0.1));
        List<Worker> w = TestWorkers.of(2);
        w.forEach(x -> load(x, 10));
        Worker home = strict.select(TestWorkers.of(2), tokens(3, 1, 4)).worker();
        Decision d = strict.select(w, tokens(3, 1, 4));
        assertThat(d.branch()).isEqualTo("load_balance_walk");
        assertThat(d.worker().url()).isEqualTo(home.url());
    }

    @Test
    void unhealthyRingWorkerIsSkippedClockwise() {
        List<Worker> w = TestWorkers.of(3);
        Worker home = policy.select(w, tokens(9, 9)).worker();
        home.setHealthy(false);
        Decision d = policy.select(w, tokens(9, 9));
        assertThat(d.worker()).isNotSameAs(home);
        assertThat(d.branch()).isEqualTo("ring_hit");
    }

    @Test
    void ringKeyIsSixteenHexDigitsOfXxh3OverLittleEndianTokens() {
        assertThat(PrefixHashPolicy.ringKey(new int[0], 256)).isEqualTo("2d06800538d394c2");
        assertThat(PrefixHashPolicy.ringKey(new int[] {1, 2, 3, 4, 5, 6}, 5))
                .isEqualTo(PrefixHashPolicy.ringKey(new int[] {1, 2, 3, 4, 5}, 256))
                .hasSize(16);
    }
}
