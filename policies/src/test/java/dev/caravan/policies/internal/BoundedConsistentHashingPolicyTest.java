package dev.caravan.policies.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

import dev.caravan.policies.BoundedConsistentHashingConfig;
import dev.caravan.policies.Decision;
import dev.caravan.policies.PolicyConfig;
import dev.caravan.policies.PolicyEnvironment;
import dev.caravan.policies.SelectionContext;
import dev.caravan.policies.TestWorkers;
import dev.caravan.policies.Worker;

/**
 * SGLang's bounded_consistent_hashing tests ({@code sgl-model-gateway/src/policies/bounded_consistent_hashing.rs}) and
 * every branch of the policy.
 */
class BoundedConsistentHashingPolicyTest {

    private static final String KEY = "user-123";

    private static BoundedConsistentHashingPolicy policy(double skew, int gap) {
        return new BoundedConsistentHashingPolicy(new BoundedConsistentHashingConfig(skew, gap),
                PolicyEnvironment.seeded(7));
    }

    private static SelectionContext headers(Map<String, String> h) {
        return new SelectionContext(null, "", null, h);
    }

    private static SelectionContext key(String k) {
        return headers(Map.of("x-smg-routing-key", k));
    }

    /** The ring's own pick for the key at zero load, which is where an unloaded key goes. */
    private static Worker preferred(List<Worker> w, String key) {
        Decision d = policy(1.5, 2).select(w, key(key));
        assertThat(d.branch()).isEqualTo("explicit_routing_key_hit");
        return d.worker();
    }

    private static Worker byUrl(List<Worker> w, String url) {
        return w.stream().filter(x -> x.url().equals(url)).findFirst().orElseThrow();
    }

    @Test
    void overloadedPreferredSpillsToTheNextRingWorkerDeterministically() {
        List<Worker> w = TestWorkers.of(3);
        Worker pref = preferred(w, KEY);
        TestWorkers.load(pref, 5); // 5 vs 0/0: mean 1.67, bound 2.5, gap 5 > 2
        HashRing ring = HashRing.of(w.stream().map(Worker::url).toList());
        Worker expected = byUrl(w, ring.find(KEY, u -> !u.equals(pref.url())));

        BoundedConsistentHashingPolicy p = policy(1.5, 2);
        for (int i = 0; i < 10; i++) {
            Decision d = p.select(w, key(KEY));
            assertThat(d.label()).isEqualTo("bounded_consistent_hashing:explicit_routing_key_spillover");
            assertThat(d.worker()).isSameAs(expected).isNotSameAs(pref);
        }
    }

    @Test
    void preferredWithinTheBoundKeepsTheKey() {
        List<Worker> w = TestWorkers.of(3);
        Worker pref = preferred(w, KEY);
        List<Worker> others = w.stream().filter(x -> x != pref).toList();
        TestWorkers.load(pref, 4);
        TestWorkers.load(others.get(1), 8); // loads 4, 0, 8: mean 4, bound 6; gap 4 > 2 but 4 <= 6
        Decision d = policy(1.5, 2).select(w, key(KEY));
        assertThat(d.worker()).isSameAs(pref);
        assertThat(d.branch()).isEqualTo("explicit_routing_key_hit");
    }

    @Test
    void gapRuleKeepsAffinityAtLowLoads() {
        List<Worker> w = TestWorkers.of(3);
        Worker pref = preferred(w, KEY);
        TestWorkers.load(pref, 1); // 1 vs 0/0 with skew 1.0: over the bound (0.33), but 1 - 0 is not > 2
        Decision kept = policy(1.0, 2).select(w, key(KEY));
        assertThat(kept.worker()).isSameAs(pref);
        assertThat(kept.branch()).isEqualTo("explicit_routing_key_hit");

        Decision noGap = policy(1.0, 0).select(w, key(KEY)); // the same loads without the gap rule do spill
        assertThat(noGap.branch()).isEqualTo("explicit_routing_key_spillover");
        assertThat(noGap.worker()).isNotSameAs(pref);
    }

    @Test
    void spillNeedsTheGapToExceedMinLoadGapStrictly() {
        List<Worker> w = TestWorkers.of(3);
        Worker pref = preferred(w, KEY);
        TestWorkers.load(pref, 2); // gap exactly 2: not > 2
        assertThat(policy(1.0, 2).select(w, key(KEY)).branch()).isEqualTo("explicit_routing_key_hit");
        TestWorkers.load(pref, 1); // gap 3
        assertThat(policy(1.0, 2).select(w, key(KEY)).branch()).isEqualTo("explicit_routing_key_spillover");
    }

    @Test
    void keepsPreferredWhenNoWorkerIsWithinTheBound() {
        List<Worker> w = TestWorkers.of(3);
        Worker pref = preferred(w, KEY);
        TestWorkers.load(pref, 10);
        w.stream().filter(x -> x != pref).forEach(x -> TestWorkers.load(x, 6));
        // loads 10, 6, 6 with skew 0.5: mean 7.33, bound 3.67, gap 4 > 2, and nobody is at or under 3.67
        Decision d = policy(0.5, 2).select(w, key(KEY));
        assertThat(d.worker()).isSameAs(pref);
        assertThat(d.branch()).isEqualTo("explicit_routing_key_no_eligible_candidate");
    }

    @Test
    void targetWorkerHeaderIgnoresLoad() {
        List<Worker> w = TestWorkers.of(3);
        TestWorkers.load(w.get(1), 100);
        Decision d = policy(1.5, 2).select(w, headers(Map.of("x-smg-target-worker", "1", "x-smg-routing-key", KEY)));
        assertThat(d.worker()).isSameAs(w.get(1));
        assertThat(d.branch()).isEqualTo("target_worker_hit");
        Decision miss = policy(1.5, 2).select(w, headers(Map.of("x-smg-target-worker", "3")));
        assertThat(miss.isEmpty()).isTrue();
        assertThat(miss.branch()).isEqualTo("target_worker_miss");
    }

    @Test
    void implicitKeysNeverSpill() {
        List<Worker> w = TestWorkers.of(3);
        SelectionContext auth = headers(Map.of("authorization", "Bearer abc"));
        Worker pref = policy(1.5, 2).select(w, auth).worker();
        TestWorkers.load(pref, 50);
        BoundedConsistentHashingPolicy p = policy(1.5, 2);
        for (int i = 0; i < 5; i++) {
            Decision d = p.select(w, auth);
            assertThat(d.worker()).isSameAs(pref);
            assertThat(d.branch()).isEqualTo("implicit_routing_key_hit");
        }
    }

    @Test
    void unhealthyPreferredIsSkippedAlongTheRing() {
        List<Worker> w = TestWorkers.of(3);
        Worker pref = preferred(w, KEY);
        pref.setHealthy(false);
        Decision d = policy(1.5, 2).select(w, key(KEY));
        assertThat(d.worker()).isNotSameAs(pref);
        assertThat(d.branch()).isEqualTo("explicit_routing_key_hit");
    }

    @Test
    void noKeyPicksRandomlyAmongHealthyWorkers() {
        List<Worker> w = TestWorkers.of(3);
        w.get(2).setHealthy(false);
        BoundedConsistentHashingPolicy p = policy(1.5, 2);
        Set<Worker> used = new HashSet<>();
        for (int i = 0; i < 50; i++) {
            Decision d = p.select(w, headers(Map.of()));
            assertThat(d.branch()).isEqualTo("random_fallback");
            used.add(d.worker());
        }
        assertThat(used).containsExactlyInAnyOrder(w.get(0), w.get(1));
    }

    @Test
    void noHealthyWorkersYieldsNoWorker() {
        List<Worker> w = TestWorkers.of(2);
        w.forEach(x -> x.setHealthy(false));
        assertThat(policy(1.5, 2).select(w, key(KEY)).branch()).isEqualTo("no_healthy_workers");
        assertThat(policy(1.5, 2).select(List.of(), key(KEY)).branch()).isEqualTo("no_healthy_workers");
    }

    @Test
    void configHasSglangDefaultsAndReadsItsOptions() {
        assertThat(BoundedConsistentHashingConfig.defaults())
                .isEqualTo(new BoundedConsistentHashingConfig(1.5, 2));
        assertThat(PolicyConfig.fromOptions("BoundedConsistentHashing", Map.of("max-load-skew", "2.0",
                "min_load_gap", "5"))).isEqualTo(new BoundedConsistentHashingConfig(2.0, 5));
        assertThat(PolicyConfig.fromOptions("bounded_consistent_hashing", Map.of()).policyName())
                .isEqualTo("bounded_consistent_hashing");
    }

    @Test
    void rejectsBadOptionsNamingTheValue() {
        assertThatThrownBy(() -> new BoundedConsistentHashingConfig(0, 2))
                .hasMessage("maxLoadSkew (max-load-skew) must be a finite number > 0, was 0.0");
        assertThatThrownBy(() -> new BoundedConsistentHashingConfig(Double.NaN, 2))
                .hasMessage("maxLoadSkew (max-load-skew) must be a finite number > 0, was NaN");
        assertThatThrownBy(() -> new BoundedConsistentHashingConfig(1.5, -1))
                .hasMessage("minLoadGap (min-load-gap) must be >= 0, was -1");
        assertThatThrownBy(() -> PolicyConfig.fromOptions("bounded_consistent_hashing", Map.of("max-load-skew", "x")))
                .hasMessage("option max-load-skew must be a number, was 'x'");
    }
}
