package dev.caravan.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;

import dev.caravan.bench.drive.RequestRecord;

class ResultCalculatorTest {

    /** A completed request of {@code key}, scheduled at {@code atMs} simulated ms, served by {@code engine}. */
    private static RequestRecord served(long seq, boolean warmup, String key, long atMs, String engine, int replica) {
        RequestRecord r = new RequestRecord(seq, warmup, atMs * 1_000_000, 0, 0, 0, key, replica);
        r.status = 200;
        r.doneNanos = 1;
        r.promptTokens = 10;
        r.engine = engine;
        return r;
    }

    @Test
    void stickinessCountsMeasuredRequestsOnTheirKeysFirstEngineIncludingWarmup() {
        List<RequestRecord> records = List.of(
                served(0, true, "a", 0, "0", 0),    // a's first engine is 0, set during the warm-up
                served(1, false, "a", 1, "0", 1),   // sticky
                served(2, false, "a", 2, "1", 0),   // moved
                served(3, false, "b", 3, "1", 1),   // b's first engine is 1: sticky by definition
                served(4, false, "b", 4, "1", 0),   // sticky
                served(5, false, null, 5, "0", 1)); // no key: not counted
        assertThat(ResultCalculator.stickiness(records)).isEqualTo(3 / 4.0);
    }

    @Test
    void stickinessIgnoresFailedRequestsAndIsNullWithoutKeys() {
        RequestRecord failed = served(0, false, "a", 0, "1", 0);
        failed.status = 503;
        List<RequestRecord> records = List.of(failed, served(1, false, "a", 1, "0", 1), served(2, false, "a", 2, "0",
                0));
        assertThat(ResultCalculator.stickiness(records)).isEqualTo(1.0);
        assertThat(ResultCalculator.stickiness(List.of(served(0, false, null, 0, "0", 0)))).isNull();
    }

    @Test
    void keysAreCountedOnTheEngineOfTheirFirstCompletedRequest() {
        RequestRecord failed = served(0, true, "c", 0, "2", 0);
        failed.status = 503;
        List<RequestRecord> records = List.of(failed,
                served(1, true, "a", 1, "0", 0),    // a starts on 0 during the warm-up
                served(2, false, "a", 2, "1", 0),   // a moved: still counted on 0
                served(3, false, "b", 3, "1", 0),
                served(4, false, "c", 4, "1", 0),   // c's first completed request
                served(5, false, null, 5, "2", 0)); // no key
        assertThat(ResultCalculator.keysByFirstEngine(records, List.of("0", "1", "2"))).containsExactly(1L, 2L, 0L);
        assertThat(ResultCalculator.keysByFirstEngine(List.of(served(0, false, null, 0, "0", 0)), List.of("0")))
                .isEmpty();
    }

    @Test
    void sameKeyGapsAreTheSimulatedTimesBetweenConsecutiveArrivalsOfOneKey() {
        List<RequestRecord> records = List.of(served(0, false, "a", 10, "0", 0), served(1, false, "b", 12, "0", 1),
                served(2, false, "a", 15, "0", 0), served(3, false, "a", 40, "0", 1), served(4, false, "b", 13, "0", 0));
        assertThat(ResultCalculator.sameKeyGapsMs(records)).containsExactly(1.0, 5.0, 25.0);
    }

    @Test
    void perReplicaCountsEveryRequestSentToEachReplica() {
        List<RequestRecord> records = List.of(served(0, true, "a", 0, "0", 0), served(1, false, "a", 1, "0", 1),
                served(2, false, "a", 2, "0", 2), served(3, false, "a", 3, "0", 0));
        assertThat(ResultCalculator.perReplica(records)).containsExactly(2L, 1L, 1L);
    }
}
