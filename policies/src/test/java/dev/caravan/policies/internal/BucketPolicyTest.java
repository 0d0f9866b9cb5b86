package dev.caravan.policies.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import dev.caravan.policies.BucketConfig;
import dev.caravan.policies.Decision;
import dev.caravan.policies.ManualTicker;
import dev.caravan.policies.PolicyEnvironment;
import dev.caravan.policies.SelectionContext;
import dev.caravan.policies.TestWorkers;
import dev.caravan.policies.Worker;

class BucketPolicyTest {

    private final ManualTicker ticker = new ManualTicker();
    private final List<Worker> w = TestWorkers.of(3);

    private BucketPolicy policy(int abs, double rel, int adjustSecs) {
        BucketPolicy p = new BucketPolicy(new BucketConfig(abs, rel, Duration.ofSeconds(adjustSecs)),
                PolicyEnvironment.of(ticker, 23));
        w.forEach(p::onWorkerAdded);
        return p;
    }

    private static SelectionContext chars(int n) {
        return SelectionContext.ofText("a".repeat(n));
    }

    private static List<Long> upperBounds(BucketPolicy p) {
        return p.boundaries("unknown").orElseThrow().stream().map(Bucket.Boundary::hi).toList();
    }

    @Test
    void initialRangesSplitTheFirst4096CharsEvenly() {
        BucketPolicy p = policy(100_000, 1.0001, 3); // guard out of the way
        assertThat(upperBounds(p)).containsExactly(1364L, 2729L, Long.MAX_VALUE);
        assertThat(p.select(w, chars(100)).worker()).isSameAs(w.get(0));
        assertThat(p.select(w, chars(2000)).worker()).isSameAs(w.get(1));
        Decision longest = p.select(w, chars(5000));
        assertThat(longest.worker()).isSameAs(w.get(2));
        assertThat(longest.label()).isEqualTo("bucket:bucket_boundary");
    }

    @Test
    void imbalancedCharCountsGoToTheWorkerWithTheFewest() {
        BucketPolicy p = policy(32, 1.0001, 10);
        assertThat(p.select(w, chars(33)).worker()).isSameAs(w.get(0)); // w0 = 33, others 0: now imbalanced
        Decision second = p.select(w, chars(34));
        assertThat(second.branch()).isEqualTo("bucket_imbalanced");
        assertThat(second.worker()).isSameAs(w.get(1));
        Decision third = p.select(w, chars(34));
        assertThat(third.worker()).isSameAs(w.get(2));
    }

    @Test
    void belowTheAbsoluteThresholdTheRangeDecides() {
        BucketPolicy p = policy(30, 2.0, 5);
        p.select(w, chars(20));
        p.select(w, chars(8)); // w0 = 28: gap 28 is not > 30
        Decision d = p.select(w, SelectionContext.ofText("request"));
        assertThat(d.branch()).isEqualTo("bucket_boundary");
        assertThat(d.worker()).isSameAs(w.get(0));
    }

    @Test
    void belowTheRelativeThresholdTheRangeDecides() {
        BucketPolicy p = policy(5, 3.0, 5);
        p.select(w, chars(15)); // -> w0 by range; now gap 15 > 5 and 15 > 0: imbalanced
        p.select(w, SelectionContext.ofText("short")); // -> w1 (fewest, first)
        p.select(w, chars(10)); // -> w2
        // w0 15, w1 5, w2 10: 15 is not > 3 * 5
        Decision d = p.select(w, SelectionContext.ofText("request"));
        assertThat(d.branch()).isEqualTo("bucket_boundary");
        assertThat(d.worker()).isSameAs(w.get(0));
    }

    @Test
    void maintenanceRecutsRangesFromTheWindow() {
        BucketPolicy p = policy(300, 1.0001, 3);
        for (int n : new int[] {5, 10, 15, 20, 24, 26}) {
            p.select(w, chars(n));
        }
        p.runMaintenance();
        assertThat(upperBounds(p)).containsExactly(20L, 26L, Long.MAX_VALUE);
        assertThat(p.select(w, chars(21)).worker()).isSameAs(w.get(1));
        assertThat(p.select(w, chars(27)).worker()).isSameAs(w.get(2));
    }

    @Test
    void maintenanceCutsByCumulativeShareIncludingTheReachedSize() {
        BucketPolicy p = policy(1000, 1.0001, 10);
        p.select(w, chars(33));
        p.select(w, chars(34));
        p.select(w, chars(34));
        p.runMaintenance();
        assertThat(upperBounds(p)).containsExactly(33L, 67L, Long.MAX_VALUE);
    }

    @Test
    void maintenanceSkipsWhenTheShareMovedLessThanTwofold() {
        BucketPolicy p = policy(1000, 1.0001, 10);
        for (int n : new int[] {30, 30, 30}) {
            p.select(w, chars(n));
        }
        p.runMaintenance();
        List<Long> first = upperBounds(p);
        p.select(w, chars(40)); // share 130 / 3 = 43, within 2x of 30
        p.runMaintenance();
        assertThat(upperBounds(p)).isEqualTo(first);
    }

    @Test
    void windowForgetsOldRequests() {
        BucketPolicy p = policy(32, 1.0001, 5);
        p.select(w, chars(100)); // w0 = 100
        ticker.advance(Duration.ofSeconds(6));
        Decision d = p.select(w, chars(10)); // the 100 expired when this one was recorded... after choosing
        assertThat(d.branch()).isEqualTo("bucket_imbalanced");
        ticker.advance(Duration.ofSeconds(6));
        Decision e = p.select(w, chars(10));
        assertThat(e.branch()).isEqualTo("bucket_boundary"); // window holds only the last 10: gap 10 <= 32
    }

    @Test
    void maintenanceWithAnEmptyWindowKeepsTheRanges() {
        BucketPolicy p = policy(300, 1.0001, 3);
        p.select(w, chars(50));
        ticker.advance(Duration.ofSeconds(10));
        p.runMaintenance();
        assertThat(upperBounds(p)).containsExactly(1364L, 2729L, Long.MAX_VALUE);
    }

    @Test
    void unhealthyRangeOwnerFallsBackToARandomHealthyWorker() {
        BucketPolicy p = policy(300, 1.0001, 3);
        w.get(0).setHealthy(false);
        Set<Worker> used = new HashSet<>();
        for (int i = 0; i < 40; i++) {
            Decision d = p.select(w, chars(1));
            assertThat(d.branch()).isEqualTo("random_fallback");
            used.add(d.worker());
        }
        assertThat(used).containsExactlyInAnyOrder(w.get(1), w.get(2));
    }

    @Test
    void candidatesTheBucketHasNotSeenJoinIt() {
        BucketPolicy p = new BucketPolicy(BucketConfig.defaults(), PolicyEnvironment.of(ticker, 1));
        assertThat(p.select(w, chars(10)).worker()).isSameAs(w.get(0));
        assertThat(upperBounds(p)).containsExactly(1364L, 2729L, Long.MAX_VALUE);
    }

    @Test
    void removingAWorkerRecutsTheInitialRanges() {
        BucketPolicy p = policy(300, 1.0001, 3);
        p.onWorkerRemoved(w.get(1));
        assertThat(p.boundaries("unknown").orElseThrow()).extracting(Bucket.Boundary::url)
                .containsExactly(w.get(0).url(), w.get(2).url());
        assertThat(upperBounds(p)).containsExactly(2047L, Long.MAX_VALUE);
    }

    @Test
    void noHealthyWorkersYieldsNone() {
        BucketPolicy p = policy(32, 1.5, 5);
        w.forEach(x -> x.setHealthy(false));
        Decision d = p.select(w, chars(5));
        assertThat(d.isEmpty()).isTrue();
        assertThat(d.branch()).isEqualTo("no_healthy_workers");
    }

    @Test
    void needsRequestTextAndRunsEveryAdjustInterval() {
        BucketPolicy p = policy(32, 1.5, 7);
        assertThat(p.needsRequestText()).isTrue();
        assertThat(p.maintenanceInterval()).isEqualTo(Duration.ofSeconds(7));
    }
}
