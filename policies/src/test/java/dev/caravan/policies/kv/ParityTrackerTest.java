package dev.caravan.policies.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

class ParityTrackerTest {

    private final AtomicLong now = new AtomicLong(1_000);
    private final ParityTracker tracker = new ParityTracker(
            new ParityConfig(Duration.ofSeconds(10), 10, 0.9, 4, 1_000), now::get);

    private void advance(Duration d) {
        now.addAndGet(d.toNanos());
    }

    @Test
    void aReportedStoreConfirmsThePrediction() {
        tracker.expect("w1", new long[] {1, 2, 3});

        tracker.observe("w1", new long[] {1, 2, 3, 99});

        ParityTracker.Snapshot s = tracker.snapshot();
        assertThat(s.matched()).isEqualTo(3);
        assertThat(s.missed()).isZero();
        assertThat(s.pending()).isZero();
        assertThat(s.agreement()).isEqualTo(1.0);
    }

    @Test
    void predictionsNotConfirmedBeforeExpiryCountAsMisses() {
        tracker.expect("w1", new long[] {1, 2});
        advance(Duration.ofSeconds(9));
        tracker.observe("w1", new long[] {1});
        advance(Duration.ofSeconds(1));

        tracker.observe("w1", new long[] {2}); // too late: expired at exactly 10 s

        ParityTracker.Snapshot s = tracker.snapshot();
        assertThat(s.matched()).isEqualTo(1);
        assertThat(s.missed()).isEqualTo(1);
        assertThat(s.agreement()).isEqualTo(0.5);
    }

    @Test
    void storesOnAnotherWorkerDoNotConfirm() {
        tracker.expect("w1", new long[] {1});

        tracker.blocksStored("w2", "m", new long[] {1});

        assertThat(tracker.snapshot().pending()).isEqualTo(1);
    }

    @Test
    void expectingAHashAgainExtendsItsDeadlineAndCountsOnce() {
        tracker.expect("w1", new long[] {1});
        advance(Duration.ofSeconds(8));
        tracker.expect("w1", new long[] {1});
        advance(Duration.ofSeconds(8));

        ParityTracker.Snapshot pendingStill = tracker.snapshot();
        tracker.observe("w1", new long[] {1});

        assertThat(pendingStill.pending()).isEqualTo(1);
        assertThat(tracker.snapshot().matched()).isEqualTo(1);
        assertThat(tracker.snapshot().missed()).isZero();
    }

    @Test
    void flagsDegradationOnceEnoughRecentPredictionsMissAndClearsItOnRecovery() {
        tracker.expect("w1", new long[] {1, 2, 3});
        tracker.observe("w1", new long[] {1});
        advance(Duration.ofSeconds(10));
        ParityTracker.Snapshot tooFew = tracker.snapshot(); // 1 match + 2 misses: 3 samples < minSamples 4

        tracker.expect("w1", new long[] {4, 5});
        advance(Duration.ofSeconds(10));
        ParityTracker.Snapshot bad = tracker.snapshot(); // 1 of 5

        tracker.expect("w1", new long[] {6, 7, 8, 9, 10, 11, 12, 13, 14, 15});
        tracker.observe("w1", new long[] {6, 7, 8, 9, 10, 11, 12, 13, 14, 15});
        ParityTracker.Snapshot good = tracker.snapshot(); // the window of 10 now holds only matches

        assertThat(tooFew.degraded()).isFalse();
        assertThat(bad.recentAgreement()).isEqualTo(0.2);
        assertThat(bad.degraded()).isTrue();
        assertThat(good.recentSamples()).isEqualTo(10);
        assertThat(good.recentAgreement()).isEqualTo(1.0);
        assertThat(good.degraded()).isFalse();
        assertThat(good.agreement()).isEqualTo(11.0 / 15);
    }

    @Test
    void removingAWorkerForgetsItsPendingPredictionsUncounted() {
        tracker.expect("w1", new long[] {1, 2});

        tracker.removeWorker("w1");
        advance(Duration.ofMinutes(1));

        ParityTracker.Snapshot s = tracker.snapshot();
        assertThat(s.pending()).isZero();
        assertThat(s.missed()).isZero();
        assertThat(s.recentAgreement()).isNaN();
    }

    @Test
    void dropsTheOldestPredictionsBeyondThePerWorkerCap() {
        ParityTracker small = new ParityTracker(new ParityConfig(Duration.ofSeconds(10), 10, 0.9, 1, 2), now::get);

        small.expect("w1", new long[] {1, 2, 3});
        small.observe("w1", new long[] {1, 2, 3});

        assertThat(small.droppedPredictions()).isEqualTo(1);
        assertThat(small.snapshot().matched()).isEqualTo(2);
    }

    @Test
    void configRejectsBadValues() {
        assertThatThrownBy(() -> new ParityConfig(Duration.ZERO, 10, 0.9, 1, 1)).hasMessage("expiry must be positive, was PT0S");
        assertThatThrownBy(() -> new ParityConfig(Duration.ofSeconds(1), 0, 0.9, 1, 1)).hasMessage("window must be >= 1, was 0");
        assertThatThrownBy(() -> new ParityConfig(Duration.ofSeconds(1), 10, 1.5, 1, 1)).hasMessage("warnBelow must be in [0,1], was 1.5");
        assertThatThrownBy(() -> new ParityConfig(Duration.ofSeconds(1), 10, 0.9, 11, 1))
                .hasMessage("minSamples must be in [1,window=10], was 11");
        assertThatThrownBy(() -> new ParityConfig(Duration.ofSeconds(1), 10, 0.9, 1, 0))
                .hasMessage("maxPendingPerWorker must be >= 1, was 0");
    }
}
