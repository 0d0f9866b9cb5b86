package dev.caravan.processors.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.caravan.policies.Worker;
import dev.caravan.policies.WorkerRegistry;

class WorkerBreakersTest {

    private final MutableClock clock = new MutableClock();
    private final WorkerRegistry registry = new WorkerRegistry();
    private final List<String> transitions = new ArrayList<>();

    private WorkerBreakers breakers(BreakerConfig config) {
        WorkerBreakers b = new WorkerBreakers(config, clock);
        b.addObserver(new BreakerObserver() {
            @Override
            public void onTransition(Worker worker, BreakerState from, BreakerState to) {
                transitions.add(from.label() + "->" + to.label());
            }
        });
        registry.addListener(b);
        return b;
    }

    private static BreakerConfig config(int failures, int successes, int timeoutSecs) {
        return new BreakerConfig(true, failures, successes, Duration.ofSeconds(timeoutSecs));
    }

    private static void repeat(int n, Runnable r) {
        for (int i = 0; i < n; i++) {
            r.run();
        }
    }

    @Test
    void opensAfterTheThresholdOfConsecutiveFailuresAndExcludesTheWorker() {
        WorkerBreakers b = breakers(config(3, 2, 60));
        Worker w = registry.add(Worker.builder("http://a:1").build());

        repeat(2, () -> b.record(w, AttemptOutcome.FAILURE));
        assertThat(b.state(w)).isEqualTo(BreakerState.CLOSED);
        assertThat(w.isAvailable()).isTrue();

        b.record(w, AttemptOutcome.FAILURE);
        assertThat(b.state(w)).isEqualTo(BreakerState.OPEN);
        assertThat(w.isAvailable()).isFalse();
        assertThat(w.isHealthy()).as("the breaker does not touch health").isTrue();
        assertThat(transitions).containsExactly("closed->open");
    }

    @Test
    void aSuccessInBetweenRestartsTheCount() {
        WorkerBreakers b = breakers(config(3, 2, 60));
        Worker w = registry.add(Worker.builder("http://a:1").build());

        repeat(2, () -> b.record(w, AttemptOutcome.FAILURE));
        b.record(w, AttemptOutcome.SUCCESS);
        repeat(2, () -> b.record(w, AttemptOutcome.FAILURE));
        assertThat(b.state(w)).isEqualTo(BreakerState.CLOSED);
        b.record(w, AttemptOutcome.FAILURE);
        assertThat(b.state(w)).isEqualTo(BreakerState.OPEN);
    }

    @Test
    void neutralOutcomesNeitherCountNorResetTheCount() {
        WorkerBreakers b = breakers(config(3, 2, 60));
        Worker w = registry.add(Worker.builder("http://a:1").build());

        b.record(w, AttemptOutcome.FAILURE);
        repeat(1000, () -> b.record(w, AttemptOutcome.NEUTRAL)); // e.g. a flood of 400s or client hang-ups
        b.record(w, AttemptOutcome.FAILURE);
        assertThat(b.state(w)).isEqualTo(BreakerState.CLOSED);
        b.record(w, AttemptOutcome.FAILURE);
        assertThat(b.state(w)).isEqualTo(BreakerState.OPEN);
    }

    @Test
    void halfOpensAfterTheTimeoutOnTheInjectedClockAndClosesAfterTheSuccessThreshold() {
        WorkerBreakers b = breakers(config(2, 3, 60));
        Worker w = registry.add(Worker.builder("http://a:1").build());
        repeat(2, () -> b.record(w, AttemptOutcome.FAILURE));

        clock.advance(Duration.ofSeconds(59));
        assertThat(w.isAvailable()).isFalse();
        clock.advance(Duration.ofSeconds(2));
        assertThat(w.isAvailable()).isTrue();
        assertThat(b.state(w)).isEqualTo(BreakerState.HALF_OPEN);

        repeat(2, () -> b.record(w, AttemptOutcome.SUCCESS));
        assertThat(b.state(w)).isEqualTo(BreakerState.HALF_OPEN);
        b.record(w, AttemptOutcome.SUCCESS);
        assertThat(b.state(w)).isEqualTo(BreakerState.CLOSED);
        assertThat(transitions).containsExactly("closed->open", "open->half_open", "half_open->closed");
    }

    @Test
    void anyFailureWhileHalfOpenReopensAtOnce() {
        WorkerBreakers b = breakers(config(2, 3, 10));
        Worker w = registry.add(Worker.builder("http://a:1").build());
        repeat(2, () -> b.record(w, AttemptOutcome.FAILURE));
        clock.advance(Duration.ofSeconds(11));
        assertThat(w.isAvailable()).isTrue();

        b.record(w, AttemptOutcome.SUCCESS);
        b.record(w, AttemptOutcome.FAILURE);

        assertThat(b.state(w)).isEqualTo(BreakerState.OPEN);
        assertThat(w.isAvailable()).isFalse();
        clock.advance(Duration.ofSeconds(9));
        assertThat(w.isAvailable()).as("the timeout restarts when it reopens").isFalse();
        clock.advance(Duration.ofSeconds(2));
        assertThat(w.isAvailable()).isTrue();
    }

    @Test
    void breakersArePerWorker() {
        WorkerBreakers b = breakers(config(2, 1, 60));
        Worker bad = registry.add(Worker.builder("http://bad:1").build());
        Worker good = registry.add(Worker.builder("http://good:1").build());

        repeat(5, () -> b.record(bad, AttemptOutcome.FAILURE));
        b.record(good, AttemptOutcome.SUCCESS);

        assertThat(b.state(bad)).isEqualTo(BreakerState.OPEN);
        assertThat(b.state(good)).isEqualTo(BreakerState.CLOSED);
        assertThat(good.isAvailable()).isTrue();
    }

    @Test
    void aDisabledBreakerNeverOpens() {
        WorkerBreakers b = breakers(new BreakerConfig(false, 1, 1, Duration.ofSeconds(60)));
        Worker w = registry.add(Worker.builder("http://a:1").build());

        repeat(100, () -> b.record(w, AttemptOutcome.FAILURE));

        assertThat(b.state(w)).isEqualTo(BreakerState.CLOSED);
        assertThat(w.isAvailable()).isTrue();
        assertThat(transitions).isEmpty();
    }

    @Test
    void aRemovedWorkersBreakerIsDroppedAndLateOutcomesAreIgnored() {
        WorkerBreakers b = breakers(config(1, 1, 60));
        Worker w = registry.add(Worker.builder("http://a:1").build());
        registry.remove(w.id());

        b.record(w, AttemptOutcome.FAILURE); // a draining request finishing after the removal

        assertThat(b.state(w)).isEqualTo(BreakerState.CLOSED);
        assertThat(transitions).isEmpty();
        Worker again = registry.add(Worker.builder("http://a:1").build());
        assertThat(b.state(again)).isEqualTo(BreakerState.CLOSED);
    }
}
