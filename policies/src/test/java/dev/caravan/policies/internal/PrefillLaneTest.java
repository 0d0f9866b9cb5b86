package dev.caravan.policies.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** One worker's pending prefills: counted whole until a first token gives the worker's speed, then credited. */
class PrefillLaneTest {

    private static final long MS = 1_000_000;

    @Test
    void everyPendingPrefillCountsWholeBeforeTheFirstSpeedSample() {
        PrefillLane lane = new PrefillLane();
        lane.add(0, 1_000);
        lane.add(0, 2_000);

        assertThat(lane.remaining(50 * MS)).isEqualTo(3_000);
        assertThat(lane.charsPerSecond()).isZero();
    }

    @Test
    void theHeadsFirstTokenGivesTheSpeedAndTheNextHeadIsCreditedFromThen() {
        PrefillLane lane = new PrefillLane();
        Object first = lane.add(0, 1_000);
        lane.add(0, 2_000);

        lane.end(first, MS); // 1,000 characters in 1 ms

        assertThat(lane.charsPerSecond()).isEqualTo(1_000_000.0);
        assertThat(lane.remaining(MS)).isEqualTo(2_000);
        assertThat(lane.remaining(MS + MS / 2)).isEqualTo(1_500);
        assertThat(lane.remaining(10 * MS)).isZero(); // never more than the head's own characters are credited
    }

    @Test
    void aPrefillSentToAnIdleWorkerStartsWhenSentNotAtTheLastFirstToken() {
        PrefillLane lane = new PrefillLane();
        lane.end(lane.add(0, 1_000), MS);
        lane.add(5 * MS, 4_000);

        assertThat(lane.remaining(6 * MS)).isEqualTo(3_000);
    }

    @Test
    void endingARequestAgainOrOutOfOrderRemovesItOnceAndTakesNoSpeedSample() {
        PrefillLane lane = new PrefillLane();
        lane.add(0, 1_000);
        Object second = lane.add(0, 2_000);

        lane.end(second, MS);
        lane.end(second, 2 * MS);

        assertThat(lane.remaining(3 * MS)).isEqualTo(1_000);
        assertThat(lane.charsPerSecond()).isZero();
    }

    @Test
    void aLaneNeverToldOfFirstTokensKeepsOnlyTheNewestEntries() {
        PrefillLane lane = new PrefillLane();
        for (int i = 0; i < PrefillLane.MAX_PENDING + 10; i++) {
            lane.add(0, 1);
        }

        assertThat(lane.remaining(0)).isEqualTo(PrefillLane.MAX_PENDING);
    }
}
