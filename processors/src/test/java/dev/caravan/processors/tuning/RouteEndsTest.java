package dev.caravan.processors.tuning;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.caravan.processors.time.ManualScheduler;

class RouteEndsTest {

    private final ManualScheduler timers = new ManualScheduler();
    private final RouteEnds ends = new RouteEnds(timers);
    private final List<String> resumed = new ArrayList<>();

    @Test
    void waitingEndsRunInTheOrderTheAnswersEndedWhenTheLoopNextSendsOneTimerForAll() {
        ends.defer(doneSync -> resumed.add("first"));
        ends.defer(doneSync -> resumed.add("second"));
        assertThat(timers.pending()).isEqualTo(1);
        assertThat(resumed).isEmpty();

        ends.runPending();

        assertThat(resumed).containsExactly("first", "second");
        assertThat(timers.pending()).isZero();
    }

    @Test
    void withoutAnotherRequestTheyRunAfterOneMillisecond() {
        ends.defer(doneSync -> resumed.add("first"));
        timers.advance(RouteEnds.LATEST_MS - 1);
        assertThat(resumed).isEmpty();

        timers.advance(1);
        assertThat(resumed).containsExactly("first");

        ends.defer(doneSync -> resumed.add("next"));
        assertThat(timers.pending()).as("a new timer for the next wait").isEqualTo(1);
        timers.advance(1);
        assertThat(resumed).containsExactly("first", "next");
    }

    @Test
    void anEndThatThrowsDoesNotKeepTheOthersWaiting() {
        ends.defer(doneSync -> {
            throw new IllegalStateException("boom");
        });
        ends.defer(doneSync -> resumed.add("second"));

        ends.runPending();

        assertThat(resumed).containsExactly("second");
    }

    @Test
    void sendingWithNothingWaitingDoesNothing() {
        ends.runPending();
        assertThat(timers.pending()).isZero();
        assertThat(resumed).isEmpty();
    }
}
