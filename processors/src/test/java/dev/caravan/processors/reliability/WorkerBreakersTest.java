package dev.caravan.processors.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
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

    /** Two failures, a success, two failures: closed; a third failure in a row opens it (threshold 3). */
    private static void assertASuccessRestartsTheCountOfThree(WorkerBreakers b, Worker w) {
        repeat(2, () -> b.record(w, AttemptOutcome.FAILURE));
        b.record(w, AttemptOutcome.SUCCESS);
        repeat(2, () -> b.record(w, AttemptOutcome.FAILURE));
        assertThat(b.state(w)).isEqualTo(BreakerState.CLOSED);
        b.record(w, AttemptOutcome.FAILURE);
        assertThat(b.state(w)).isEqualTo(BreakerState.OPEN);
    }

    @Test
    void aSuccessInBetweenRestartsTheCount() {
        WorkerBreakers b = breakers(config(3, 2, 60));
        Worker w = registry.add(Worker.builder("http://a:1").build());

        assertASuccessRestartsTheCountOfThree(b, w);
    }

    @Test
    void successesBeyondAWindowFullOfThemAreNotRecordedAndTheCountStillRestartsAfterAFailure() {
        WorkerBreakers b = breakers(config(3, 2, 60));
        Worker w = registry.add(Worker.builder("http://a:1").build());
        CircuitBreaker breaker = b.controlBreaker(w);

        repeat(50, () -> b.record(w, AttemptOutcome.SUCCESS));
        assertThat(breaker.getMetrics().getNumberOfSuccessfulCalls()).isEqualTo(3);

        assertASuccessRestartsTheCountOfThree(b, w);
    }

    @Test
    void aControlCallFailureAfterManySuccessesMakesTheNextSuccessCountAgain() {
        WorkerBreakers b = breakers(config(3, 2, 60));
        Worker w = registry.add(Worker.builder("http://a:1").build());
        CircuitBreaker control = b.controlBreaker(w);

        repeat(50, () -> b.record(w, AttemptOutcome.SUCCESS));
        controlCall(control, true);
        b.record(w, AttemptOutcome.SUCCESS); // restarts the count: failure, success, failure, failure is not three
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

    /** What the circuitBreaker EIP does with a breaker: acquire, run, then onResult or onError. */
    private static void controlCall(CircuitBreaker breaker, boolean fails) {
        try {
            CircuitBreaker.decorateCallable(breaker, () -> {
                if (fails) {
                    throw new java.io.IOException("refused");
                }
                return "ok";
            }).call();
        } catch (Exception expected) {
            // the EIP reports it to the route
        }
    }

    @Test
    void controlCallFailuresCountAgainstTheWorkersOwnBreaker() {
        WorkerBreakers b = breakers(config(3, 2, 60));
        Worker w = registry.add(Worker.builder("http://a:1").build());
        CircuitBreaker control = b.controlBreaker(w);

        b.record(w, AttemptOutcome.FAILURE);
        repeat(2, () -> controlCall(control, true));

        assertThat(b.state(w)).isEqualTo(BreakerState.OPEN);
        assertThat(w.isAvailable()).isFalse();
        assertThat(control.getState()).as("the EIP sees the worker's breaker").isEqualTo(CircuitBreaker.State.OPEN);
        assertThatThrownBy(() -> CircuitBreaker.decorateCallable(control, () -> "x").call())
                .isInstanceOf(CallNotPermittedException.class);
    }

    @Test
    void controlCallSuccessesNeitherCountNorResetTheCount() {
        WorkerBreakers b = breakers(config(3, 2, 60));
        Worker w = registry.add(Worker.builder("http://a:1").build());
        CircuitBreaker control = b.controlBreaker(w);

        repeat(2, () -> b.record(w, AttemptOutcome.FAILURE));
        repeat(50, () -> controlCall(control, false)); // /get_load answering while every generation fails
        b.record(w, AttemptOutcome.FAILURE);

        assertThat(b.state(w)).isEqualTo(BreakerState.OPEN);
    }

    @Test
    void aControlCallFailureWhileHalfOpenReopensAndOnlyAttemptsCloseIt() {
        WorkerBreakers b = breakers(config(2, 2, 10));
        Worker w = registry.add(Worker.builder("http://a:1").build());
        CircuitBreaker control = b.controlBreaker(w);
        repeat(2, () -> b.record(w, AttemptOutcome.FAILURE));
        clock.advance(Duration.ofSeconds(11));

        controlCall(control, false); // the EIP's permission check moves the expired open breaker to half-open
        assertThat(b.state(w)).isEqualTo(BreakerState.HALF_OPEN);
        repeat(5, () -> controlCall(control, false));
        assertThat(b.state(w)).as("control successes are neutral").isEqualTo(BreakerState.HALF_OPEN);
        controlCall(control, true);
        assertThat(b.state(w)).isEqualTo(BreakerState.OPEN);

        clock.advance(Duration.ofSeconds(11));
        assertThat(w.isAvailable()).isTrue();
        repeat(2, () -> b.record(w, AttemptOutcome.SUCCESS));
        assertThat(b.state(w)).isEqualTo(BreakerState.CLOSED);
        assertThat(transitions).containsExactly("closed->open", "open->half_open", "half_open->open",
                "open->half_open", "half_open->closed");
    }

    @Test
    void withBreakersDisabledTheControlRouteGetsADisabledBreaker() {
        WorkerBreakers b = breakers(new BreakerConfig(false, 1, 1, Duration.ofSeconds(60)));
        Worker w = registry.add(Worker.builder("http://a:1").build());
        CircuitBreaker control = b.controlBreaker(w);

        repeat(10, () -> controlCall(control, true));

        assertThat(control.getState()).isEqualTo(CircuitBreaker.State.DISABLED);
        assertThat(control.getName()).isEqualTo(w.id());
        assertThat(w.isAvailable()).isTrue();
    }

    @Test
    void rejectsInvalidSettingsNamingThem() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> config(0, 1, 1))
                .hasMessage("cb failureThreshold must be >= 1, was 0");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> config(1, 0, 1))
                .hasMessage("cb successThreshold must be >= 1, was 0");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> config(1, 1, 0))
                .hasMessage("cb openTimeout must be positive, was PT0S");
    }
}
