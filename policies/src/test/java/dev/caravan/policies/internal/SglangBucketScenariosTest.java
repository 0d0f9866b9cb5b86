package dev.caravan.policies.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.caravan.policies.BucketConfig;
import dev.caravan.policies.Decision;
import dev.caravan.policies.ManualTicker;
import dev.caravan.policies.PolicyEnvironment;
import dev.caravan.policies.SelectionContext;
import dev.caravan.policies.TestWorkers;
import dev.caravan.policies.Worker;

/**
 * SGLang's bucket tests replayed against {@link BucketPolicy}: the {@code #[tokio::test]}s of
 * {@code src/policies/bucket.rs} in {@code lightseekorg/smg} at {@code c7f9bf9f5} (smg 0.3.2, 2026-01-15, the last
 * SGLang-side release of {@code sgl-model-gateway}). Scenarios and expected outcomes are SGLang's; the code is ours.
 *
 * <p>SGLang's tests sleep past its adjustment thread's period; here a {@link ManualTicker} advances to the moment that
 * thread would run and {@link BucketPolicy#runMaintenance()} runs there. Two notes from replaying them:
 * <ul>
 *   <li>SGLang's boundary assertions look the bucket up under the model key {@code "default"}, while its buckets are
 *       keyed {@code "unknown"} (its {@code UNKNOWN_MODEL_ID}) for workers without a model, so in SGLang those
 *       assertions never run. The expected ranges in its comments are what its algorithm computes (worked through by
 *       hand from {@code adjust_boundary}), and the mirrors assert them.</li>
 *   <li>Where SGLang picks "the worker with the fewest characters" from a hash map (any of several tied ones), ours takes
 *       the first in worker order, so the mirrors can name it.</li>
 * </ul>
 */
class SglangBucketScenariosTest {

    private final ManualTicker ticker = new ManualTicker();
    private final List<Worker> w = TestWorkers.of(3);

    private BucketPolicy policy(int abs, double rel, int adjustSecs) {
        BucketPolicy p = new BucketPolicy(new BucketConfig(abs, rel, Duration.ofSeconds(adjustSecs)),
                PolicyEnvironment.of(ticker, 22));
        w.forEach(p::onWorkerAdded);
        return p;
    }

    private static SelectionContext chars(int n) {
        return SelectionContext.ofText("a".repeat(n));
    }

    private int send(BucketPolicy p, int chars) {
        return w.indexOf(p.select(w, chars(chars)).worker());
    }

    private static List<Long> upperBounds(BucketPolicy p) {
        return p.boundaries("unknown").orElseThrow().stream().map(Bucket.Boundary::hi).toList();
    }

    /** Advances to the adjustment thread's next run and runs it there. */
    private void adjustAfter(BucketPolicy p, int seconds) {
        ticker.advance(Duration.ofSeconds(seconds));
        p.runMaintenance();
    }

    @Test
    void theCharacterGuardFiresOnlyWhenBothThresholdsAreExceeded() {
        // mirrors sglang bucket.rs test_load_balancing_conditions
        // 1. abs 32, rel 1.0001: one 33-char prompt unbalances the window; the next two go to the emptiest workers
        BucketPolicy p = policy(32, 1.0001, 10);
        assertThat(send(p, 33)).isZero();
        assertThat(send(p, 34)).isEqualTo(1);
        assertThat(send(p, 34)).isEqualTo(2);
        adjustAfter(p, 10);
        assertThat(upperBounds(p)).containsExactly(33L, 67L, Long.MAX_VALUE);
        ticker.advance(Duration.ofSeconds(1)); // SGLang's test slept 11 s in all
        assertThat(send(p, 33)).isZero(); // balanced when checked; recording it expires the old window
        int second = send(p, 33);
        int third = send(p, 33);
        assertThat(second).isNotZero().isNotEqualTo(third);
        assertThat(third).isNotZero();

        // 2. abs 30, rel 2.0: a gap of 28 characters is within the absolute threshold
        BucketPolicy p2 = new BucketPolicy(new BucketConfig(30, 2.0, Duration.ofSeconds(5)),
                PolicyEnvironment.of(new ManualTicker(), 22));
        w.forEach(p2::onWorkerAdded);
        assertThat(w.indexOf(p2.select(w, chars(20)).worker())).isZero();
        assertThat(w.indexOf(p2.select(w, chars(8)).worker())).isZero();
        assertThat(p2.select(w, SelectionContext.ofText("request")).branch()).isEqualTo("bucket_boundary");

        // 3. abs 5, rel 3.0: 15 against a minimum of 5 is not more than three times it
        BucketPolicy p3 = new BucketPolicy(new BucketConfig(5, 3.0, Duration.ofSeconds(5)),
                PolicyEnvironment.of(new ManualTicker(), 22));
        w.forEach(p3::onWorkerAdded);
        assertThat(w.indexOf(p3.select(w, chars(15)).worker())).isZero();
        assertThat(w.indexOf(p3.select(w, SelectionContext.ofText("short")).worker())).isEqualTo(1);
        assertThat(w.indexOf(p3.select(w, chars(10)).worker())).isEqualTo(2);
        Decision last = p3.select(w, SelectionContext.ofText("request"));
        assertThat(w.indexOf(last.worker())).isZero();
        assertThat(last.branch()).isEqualTo("bucket_boundary");
    }

    @Test
    void rangesAreReCutFromEachWindowOfPromptSizes() {
        // mirrors sglang bucket.rs test_adjust_boundary_1
        BucketPolicy p = policy(300, 1.0001, 3);
        assertThat(upperBounds(p)).containsExactly(1364L, 2729L, Long.MAX_VALUE);
        for (int n : new int[] {5, 10, 15, 20, 24, 26}) {
            send(p, n);
        }
        adjustAfter(p, 3);
        assertThat(upperBounds(p)).containsExactly(20L, 26L, Long.MAX_VALUE);
        ticker.advance(Duration.ofSeconds(1)); // t = 4 s: the first window has expired when these are recorded
        for (int n : new int[] {10, 20, 30, 40, 45, 57}) {
            send(p, n);
        }
        adjustAfter(p, 2); // the thread's next run, t = 6 s
        assertThat(upperBounds(p)).containsExactly(40L, 57L, Long.MAX_VALUE);
    }

    @Test
    void aWorkerLeftWithoutSizesGetsAShareWideRange() {
        // mirrors sglang bucket.rs test_adjust_boundary_2
        BucketPolicy p = policy(300, 1.0001, 3);
        send(p, 20);
        adjustAfter(p, 3);
        assertThat(upperBounds(p)).containsExactly(20L, 27L, Long.MAX_VALUE); // share 20 / 3 = 6: [21, 27]
        ticker.advance(Duration.ofSeconds(1));
        send(p, 7);
        adjustAfter(p, 2);
        assertThat(upperBounds(p)).containsExactly(7L, 10L, Long.MAX_VALUE); // share 2: [8, 10]
    }

    @Test
    void rangesStayWhenThePerWorkerShareMovedLessThanTwofold() {
        // mirrors sglang bucket.rs test_not_adjust_boundary
        BucketPolicy p = policy(300, 1.0001, 3);
        for (int n : new int[] {5, 10, 15, 20, 24, 26}) {
            send(p, n);
        }
        adjustAfter(p, 3);
        assertThat(upperBounds(p)).containsExactly(20L, 26L, Long.MAX_VALUE); // share 33
        ticker.advance(Duration.ofSeconds(1));
        for (int n : new int[] {10, 20, 30, 32, 45, 55}) {
            send(p, n);
        }
        adjustAfter(p, 2); // share 192 / 3 = 64, within twice 33
        assertThat(upperBounds(p)).containsExactly(20L, 26L, Long.MAX_VALUE);
    }
}
