package dev.caravan.policies.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import org.junit.jupiter.api.Test;

import dev.caravan.policies.CacheAwareConfig;
import dev.caravan.policies.Decision;
import dev.caravan.policies.PolicyEnvironment;
import dev.caravan.policies.SelectionContext;
import dev.caravan.policies.TestWorkers;
import dev.caravan.policies.Worker;

/**
 * cache_aware's {@code --one-off-sink-share}: misses whose context is predicted one-off go to the sink
 * (w0 of four workers at share 0.25), other misses outside it, and balance still wins.
 */
class CacheAwarePollutionTest {

    /** Two preambles each carrying at least a quarter of the traffic, so each is a shared branch point (a context). */
    private static final String ONE_OFF = "Summarise the attached ticket for the support queue. ".repeat(2);
    private static final String CHAT = "You are a patient tutor; continue the lesson with the student. ".repeat(2);

    private final List<Worker> workers = TestWorkers.of(4);

    private CacheAwarePolicy policy(double share) {
        // without the prefill-backlog rule: no first token is reported here, so every miss's backlog would stay;
        // without the request-share margin: a conversation's 512 turns at one instant put its worker over its share
        CacheAwarePolicy p = new CacheAwarePolicy(CacheAwareConfig.defaults().withOneOffSinkShare(share)
                .withPrefillBacklogRatio(0).withRequestShareMargin(0), PolicyEnvironment.seeded(1));
        workers.forEach(p::onWorkerAdded);
        return p;
    }

    private static String ticket(int n) {
        return ONE_OFF + ("ticket " + n + " body ").repeat(60);
    }

    private static String lesson(int n, int turns) {
        StringBuilder sb = new StringBuilder(CHAT);
        sb.append(("student " + n + " ").repeat(60));
        for (int t = 1; t <= turns; t++) {
            sb.append(" turn ").append(t).append(" question and answer");
        }
        return sb.toString();
    }

    private static Decision send(CacheAwarePolicy p, List<Worker> w, String text) {
        return p.select(w, SelectionContext.ofText(text));
    }

    /** Interleaves one-off tickets with conversations of two turns until the tickets' context closes as one-off. */
    private void learn(CacheAwarePolicy p) {
        int tickets = ReusePredictor.WINDOW + ReusePredictor.MIN_SAMPLES;
        for (int n = 0; n < tickets; n++) {
            send(p, workers, ticket(n));
            send(p, workers, lesson(n, 1));
            send(p, workers, lesson(n, 2));
        }
    }

    @Test
    void beforeAnyMissIsPredictedOneOffTheSinkIsNotKeptApart() {
        CacheAwarePolicy p = policy(0.25);
        for (int n = 0; n < 4; n++) {
            Decision d = send(p, workers, ticket(n));
            assertThat(d.worker()).isSameAs(workers.get(n)); // SGLang's least loaded: fewer processed, then order
            assertThat(d.branch()).isEqualTo("cache_miss_min_load");
        }
    }

    @Test
    void oncePredictedOneOffTheTicketsGoToTheSinkWhileNewConversationsStayOutside() {
        CacheAwarePolicy p = policy(0.25);
        learn(p);
        Decision t = send(p, workers, ticket(99_999));
        assertThat(t.worker()).isSameAs(workers.get(0));
        assertThat(t.branch()).isEqualTo("cache_miss_one_off");
        Decision c = send(p, workers, lesson(99_999, 1));
        assertThat(c.worker()).isNotSameAs(workers.get(0));
        assertThat(c.branch()).isEqualTo("cache_miss_reusable");
        Decision next = send(p, workers, lesson(99_999, 2));
        assertThat(next.worker()).isSameAs(c.worker());
        assertThat(next.branch()).isEqualTo("cache_hit");
    }

    @Test
    void oncePromptsOfOneOffContextsStopComingTheSinkIsNoLongerKeptApart() {
        CacheAwarePolicy p = policy(0.25);
        learn(p);
        Decision first = send(p, workers, lesson(99_999, 1));
        assertThat(first.branch()).isEqualTo("cache_miss_reusable");
        for (int t = 2; t < 2 + ReusePredictor.WINDOW; t++) {
            assertThat(send(p, workers, lesson(99_999, t)).branch()).isEqualTo("cache_hit");
        }
        // more than 512 decisions since the last miss predicted one-off (the last ticket): an ordinary miss again
        assertThat(send(p, workers, lesson(99_998, 1)).branch()).isEqualTo("cache_miss_min_load");
    }

    @Test
    void aSinkTwoRequestsAboveTheLeastLoadedFallsBackToTheLeastLoadedWorker() {
        CacheAwarePolicy p = policy(0.25);
        learn(p);
        TestWorkers.load(workers.get(0), 2);
        Decision d = send(p, workers, ticket(99_999));
        assertThat(d.worker()).isNotSameAs(workers.get(0));
        assertThat(d.branch()).isEqualTo("cache_miss_min_load");
    }

    @Test
    void aSinkOneRequestAboveTheLeastLoadedStillTakesTheOneOffPrompt() {
        CacheAwarePolicy p = policy(0.25);
        learn(p);
        TestWorkers.load(workers.get(0), 1);
        Decision d = send(p, workers, ticket(99_999));
        assertThat(d.worker()).isSameAs(workers.get(0));
        assertThat(d.branch()).isEqualTo("cache_miss_one_off");
    }

    @Test
    void atHighLoadTheSinkMayCarryTheGuardsRelativeMargin() {
        CacheAwarePolicy p = policy(0.25);
        learn(p);
        for (Worker w : workers) {
            TestWorkers.load(w, w == workers.get(0) ? 15 : 10); // 15 <= 1.5 x 10
        }
        assertThat(send(p, workers, ticket(99_998)).branch()).isEqualTo("cache_miss_one_off");
        TestWorkers.load(workers.get(0), 1); // 16 > 15
        assertThat(send(p, workers, ticket(99_999)).branch()).isEqualTo("cache_miss_min_load");
    }

    @Test
    void theSinkIsTheRoundedShareLeavingOneWorkerOutside() {
        assertThat(new OneOffSink(0.25, 1.5).sinkSize(8)).isEqualTo(2);
        assertThat(new OneOffSink(0.1, 1.5).sinkSize(8)).isEqualTo(1);
        assertThat(new OneOffSink(0.9, 1.5).sinkSize(8)).isEqualTo(7);
        assertThat(new OneOffSink(0.5, 1.5).sinkSize(1)).isZero();
    }

    @Test
    void theShareMustBeBelowOne() {
        assertThatThrownBy(() -> CacheAwareConfig.defaults().withOneOffSinkShare(1.0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("one-off-sink-share");
        assertThatThrownBy(() -> CacheAwareConfig.defaults().withOneOffSinkShare(-0.1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("one-off-sink-share");
    }
}
