package dev.caravan.processors.kv;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import dev.caravan.processors.kv.SequenceTracker.Kind;

class SequenceTrackerTest {

    private final SequenceTracker tracker = new SequenceTracker();

    @Test
    void theFirstSequenceSeenIsTheBaselineWhateverItIs() {
        assertThat(tracker.observe("t", 0, 41).kind()).isEqualTo(Kind.FIRST);
        assertThat(tracker.observe("t", 0, 42).kind()).isEqualTo(Kind.NEXT);
    }

    @Test
    void aJumpIsAGapNamingTheMissingBatches() {
        tracker.observe("t", 0, 5);

        SequenceTracker.Verdict v = tracker.observe("t", 0, 9);

        assertThat(v.kind()).isEqualTo(Kind.GAP);
        assertThat(v.previous()).isEqualTo(5);
        assertThat(v.missing()).isEqualTo(3);
        assertThat(tracker.observe("t", 0, 10).kind()).isEqualTo(Kind.NEXT);
    }

    @Test
    void aRepeatIsADuplicateAndDoesNotMoveTheBaseline() {
        tracker.observe("t", 0, 5);

        assertThat(tracker.observe("t", 0, 5).kind()).isEqualTo(Kind.DUPLICATE);
        assertThat(tracker.observe("t", 0, 6).kind()).isEqualTo(Kind.NEXT);
    }

    @Test
    void goingBackwardsIsARestartAndBecomesTheNewBaseline() {
        tracker.observe("t", 0, 500);

        SequenceTracker.Verdict v = tracker.observe("t", 0, 0);

        assertThat(v.kind()).isEqualTo(Kind.RESTART);
        assertThat(v.previous()).isEqualTo(500);
        assertThat(tracker.observe("t", 0, 1).kind()).isEqualTo(Kind.NEXT);
    }

    @Test
    void eachTopicAndRankIsItsOwnPublisher() {
        tracker.observe("t", 0, 10);
        tracker.observe("t", 1, 3);

        assertThat(tracker.observe("t", 1, 4).kind()).isEqualTo(Kind.NEXT);
        assertThat(tracker.observe("u", 0, 0).kind()).isEqualTo(Kind.FIRST);
        assertThat(tracker.observe("t", 0, 11).kind()).isEqualTo(Kind.NEXT);
    }

    @Test
    void comparesSequencesAsUnsigned() {
        long big = Long.MIN_VALUE; // 2^63 unsigned
        tracker.observe("t", 0, big - 1); // 2^63 - 1

        assertThat(tracker.observe("t", 0, big).kind()).isEqualTo(Kind.NEXT);
        assertThat(tracker.observe("t", 0, 2).kind()).isEqualTo(Kind.RESTART);
    }

    @Test
    void resetMakesTheNextMessageABaseline() {
        tracker.observe("t", 0, 10);
        tracker.reset();

        assertThat(tracker.observe("t", 0, 3).kind()).isEqualTo(Kind.FIRST);
    }
}
