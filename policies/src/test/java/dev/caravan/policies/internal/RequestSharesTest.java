package dev.caravan.policies.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.caravan.policies.ManualTicker;
import dev.caravan.policies.TestWorkers;
import dev.caravan.policies.Worker;

/** The recent-request counts behind {@code --request-share-margin}, on an injected clock. */
class RequestSharesTest {

    private static final long HALF_LIFE = RequestShares.HALF_LIFE_NANOS;

    private final ManualTicker clock = new ManualTicker(0);
    private final List<Worker> workers = TestWorkers.of(3);

    private RequestShares shares(double margin) {
        return new RequestShares(margin, clock);
    }

    private static void send(RequestShares s, Worker w, int n) {
        for (int i = 0; i < n; i++) {
            s.record(w.url());
        }
    }

    @Test
    void countsHalveEveryHalfLife() {
        RequestShares s = shares(0.1);
        send(s, workers.get(0), 8);
        assertThat(s.recent(workers.get(0).url())).isEqualTo(8.0);
        clock.set(HALF_LIFE);
        assertThat(s.recent(workers.get(0).url())).isEqualTo(4.0);
        send(s, workers.get(0), 1);
        clock.set(2 * HALF_LIFE);
        assertThat(s.recent(workers.get(0).url())).isEqualTo(2.5);
        assertThat(s.recent(workers.get(1).url())).isZero();
    }

    @Test
    void aWorkerIsOverItsShareOnlyBeyondBothTheMinimumExcessAndTheMargin() {
        List<Worker> two = workers.subList(0, 2);
        RequestShares s = shares(0.1);
        send(s, two.get(0), 40);
        send(s, two.get(1), 8);
        assertThat(s.over(two.get(0), two)).isFalse(); // mean 24: 16 above, not more
        send(s, two.get(0), 1);
        assertThat(s.over(two.get(0), two)).isTrue(); // mean 24.5: 16.5 above
        assertThat(s.over(two.get(1), two)).isFalse();

        RequestShares wide = shares(0.5);
        send(wide, two.get(0), 90);
        send(wide, two.get(1), 30);
        assertThat(wide.over(two.get(0), two)).isFalse(); // mean 60: 30 above, not more than half of it
        send(wide, two.get(0), 1);
        assertThat(wide.over(two.get(0), two)).isTrue(); // mean 60.5: 30.5 above
    }

    @Test
    void aSingleWorkerIsNeverOverItsShare() {
        RequestShares s = shares(0.1);
        send(s, workers.get(0), 100);
        assertThat(s.over(workers.get(0), workers.subList(0, 1))).isFalse();
    }

    @Test
    void aDivertedHitGoesToTheLongestHeldPrefixThenTheFewestRecentRequestsNeverToAnOverShareWorker() {
        RequestShares s = shares(0.1);
        send(s, workers.get(0), 60);
        send(s, workers.get(1), 10);
        send(s, workers.get(2), 5);
        // w0 holds the most but is over its share (mean 25); w1 holds part of the prompt
        assertThat(s.divert(workers, Map.of(workers.get(0).url(), 900L, workers.get(1).url(), 300L)))
                .isSameAs(workers.get(1));
        // nobody else holds any of it: the fewest recent requests
        assertThat(s.divert(workers, Map.of(workers.get(0).url(), 900L))).isSameAs(workers.get(2));
    }

    @Test
    void aRemovedWorkerStartsAgainFromZero() {
        RequestShares s = shares(0.1);
        send(s, workers.get(0), 50);
        s.removeWorker(workers.get(0).url());
        assertThat(s.recent(workers.get(0).url())).isZero();
    }
}
