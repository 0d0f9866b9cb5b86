package dev.caravan.processors.reliability;

import static dev.caravan.processors.CaravanExchangeProperties.ATTEMPT_PENDING;
import static dev.caravan.processors.CaravanExchangeProperties.EXCLUDED_WORKERS;
import static dev.caravan.processors.CaravanExchangeProperties.HOLD_BACK_STATUSES;
import static dev.caravan.processors.CaravanExchangeProperties.OUTCOME;
import static dev.caravan.processors.CaravanExchangeProperties.RESPONSE_COMMITTED;
import static dev.caravan.processors.CaravanExchangeProperties.RESPONSE_STATUS;
import static dev.caravan.processors.CaravanExchangeProperties.TTFB_NANOS;
import static dev.caravan.processors.CaravanExchangeProperties.WORKER;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntPredicate;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.camel.Exchange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.caravan.policies.Worker;
import dev.caravan.processors.CaravanExchangeProperties;
import dev.caravan.processors.ExchangeProperty;
import dev.caravan.processors.StartedCamel;
import dev.caravan.processors.error.GatewayError;
import dev.caravan.processors.error.GatewayException;
import dev.caravan.processors.forward.ForwardOutcomes;
import dev.caravan.processors.time.ManualScheduler;

/** beginAttempts, decideRetry and awaitBackoff on exchanges shaped like the attempt loop leaves them. */
class RetryStepsTest {

    @RegisterExtension
    static final StartedCamel CAMEL = new StartedCamel();

    private final RetryConfig config = new RetryConfig(3, Duration.ofMillis(100), Duration.ofSeconds(1), 2.0, 0);
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final ReliabilityMetrics metrics = new ReliabilityMetrics(meters,
            new WorkerBreakers(BreakerConfig.defaults(), java.time.Clock.systemUTC()));
    private final BeginAttemptsProcessor begin = new BeginAttemptsProcessor(config);
    private final DecideRetryProcessor decide = new DecideRetryProcessor(config, () -> new SplittableRandom(1), metrics);
    private final Worker a = Worker.builder("http://a:1").build();

    private Exchange begun() {
        Exchange e = CAMEL.exchange();
        begin.process(e);
        return e;
    }

    /** What forwardStream leaves after an attempt on worker {@code w}. */
    private static void attemptEnded(Exchange e, Worker w, String outcome, Integer status, boolean committed,
                                     Exception caught) {
        WORKER.set(e, w);
        OUTCOME.set(e, outcome);
        if (status != null) {
            RESPONSE_STATUS.set(e, status);
        }
        RESPONSE_COMMITTED.set(e, committed);
        if (caught != null) {
            e.setProperty(Exchange.EXCEPTION_CAUGHT, caught);
        }
    }

    private double retries(String reason) {
        var c = meters.find("caravan.retries").tag("reason", reason).counter();
        return c == null ? 0 : c.count();
    }

    @Test
    void beginningStartsTheFirstAttemptAndHoldsBackRetryableStatuses() {
        Exchange e = begun();

        RetryState s = RetryState.of(e);
        assertThat(s.attempts()).isEqualTo(1);
        assertThat(ATTEMPT_PENDING.get(e)).isTrue();
        IntPredicate holdBack = HOLD_BACK_STATUSES.get(e);
        assertThat(holdBack.test(503)).isTrue();
        assertThat(holdBack.test(400)).isFalse();
        assertThat(holdBack.test(200)).isFalse();
    }

    @Test
    void withOneAttemptNothingIsHeldBack() {
        Exchange e = CAMEL.exchange();
        new BeginAttemptsProcessor(RetryConfig.disabled()).process(e);
        assertThat(HOLD_BACK_STATUSES.get(e)).isNull();
    }

    @Test
    void aHeldBackStatusIsRetriedOnAnotherWorkerAfterTheBackoff() throws Exception {
        Exchange e = begun();
        attemptEnded(e, a, ForwardOutcomes.RETRYABLE_STATUS, 503, false, null);
        TTFB_NANOS.set(e, 5L);

        decide.process(e);

        RetryState s = RetryState.of(e);
        assertThat(ATTEMPT_PENDING.get(e)).isTrue();
        assertThat(s.attempts()).isEqualTo(2);
        assertThat(s.excluded()).containsExactly(a);
        assertThat(EXCLUDED_WORKERS.get(e)).isEqualTo(s.excluded());
        assertThat(s.nextDelayMillis()).isEqualTo(100);
        for (ExchangeProperty<?> p : List.of(CaravanExchangeProperties.WORKER, CaravanExchangeProperties.OUTCOME,
                CaravanExchangeProperties.RESPONSE_STATUS, CaravanExchangeProperties.TTFB_NANOS)) {
            assertThat(p.get(e)).as(p.name()).isNull();
        }
        assertThat(HOLD_BACK_STATUSES.get(e)).as("attempt 2 of 3 still holds back").isNotNull();
        assertThat(retries("503")).isEqualTo(1);
    }

    @Test
    void aConnectionFailureBeforeTheHeadIsRetriedAndTheLastAttemptRelaysWhateverComes() throws Exception {
        Exchange e = begun();
        attemptEnded(e, a, ForwardOutcomes.UPSTREAM_FAILED, null, false,
                GatewayError.UPSTREAM_FAILED.exception("refused"));
        decide.process(e);
        assertThat(e.getProperty(Exchange.EXCEPTION_CAUGHT)).as("the caught failure is consumed").isNull();

        Worker b = Worker.builder("http://b:1").build();
        attemptEnded(e, b, ForwardOutcomes.IDLE_TIMEOUT, null, false, GatewayError.UPSTREAM_TIMEOUT.exception("idle"));
        decide.process(e);

        RetryState s = RetryState.of(e);
        assertThat(s.attempts()).isEqualTo(3);
        assertThat(s.nextDelayMillis()).isEqualTo(200); // 100 x 2^1
        assertThat(s.excluded()).containsExactly(a, b);
        assertThat(HOLD_BACK_STATUSES.get(e)).as("last attempt").isNull();
        assertThat(retries("upstream_failed")).isEqualTo(1);
        assertThat(retries("idle_timeout")).isEqualTo(1);
    }

    @Test
    void aNonStreamedAttemptThatHitItsLimitIsRetriedOnAnotherWorker() throws Exception {
        Exchange e = begun();
        attemptEnded(e, a, ForwardOutcomes.ATTEMPT_TIMEOUT, null, false,
                GatewayError.UPSTREAM_TIMEOUT.exception("did not answer"));
        decide.process(e);

        assertThat(ATTEMPT_PENDING.get(e)).isTrue();
        assertThat(RetryState.of(e).excluded()).containsExactly(a);
        assertThat(retries("attempt_timeout")).isEqualTo(1);
    }

    @Test
    void theLastAttemptsFailureIsRethrownAndCountedAsExhausted() throws Exception {
        Exchange e = begun();
        for (int i = 0; i < 2; i++) {
            attemptEnded(e, a, ForwardOutcomes.UPSTREAM_FAILED, null, false, GatewayError.UPSTREAM_FAILED.exception("x"));
            decide.process(e);
        }
        GatewayException last = GatewayError.UPSTREAM_FAILED.exception("third");
        attemptEnded(e, a, ForwardOutcomes.UPSTREAM_FAILED, null, false, last);

        assertThatThrownBy(() -> decide.process(e)).isSameAs(last);
        assertThat(ATTEMPT_PENDING.get(e)).isFalse();
        assertThat(meters.find("caravan.retries.exhausted").counter().count()).isEqualTo(1);
    }

    @Test
    void nothingIsRetriedOnceTheResponseReachedTheClient() throws Exception {
        Exchange e = begun();
        attemptEnded(e, a, ForwardOutcomes.UPSTREAM_FAILED, 200, true, null); // broke mid-stream

        decide.process(e);

        assertThat(ATTEMPT_PENDING.get(e)).isFalse();
        assertThat(RetryState.of(e).attempts()).isEqualTo(1);
        assertThat(meters.find("caravan.retries").counters()).isEmpty();
    }

    @Test
    void endToEndTimeoutsClientHangUpsAndTheGatewaysOwnErrorsAreNotRetried() throws Exception {
        Exchange timedOut = begun();
        GatewayException timeout = GatewayError.UPSTREAM_TIMEOUT.exception("deadline");
        attemptEnded(timedOut, a, ForwardOutcomes.TIMEOUT, null, false, timeout);
        assertThatThrownBy(() -> decide.process(timedOut)).isSameAs(timeout);

        Exchange gone = begun();
        attemptEnded(gone, a, ForwardOutcomes.CLIENT_CLOSED, 499, true, null);
        decide.process(gone);
        assertThat(ATTEMPT_PENDING.get(gone)).isFalse();

        Exchange none = begun();
        GatewayException noWorker = GatewayError.NO_AVAILABLE_WORKERS.exception("none");
        none.setProperty(Exchange.EXCEPTION_CAUGHT, noWorker); // selectWorker threw: no OUTCOME
        assertThatThrownBy(() -> decide.process(none)).isSameAs(noWorker);

        Exchange fine = begun();
        attemptEnded(fine, a, ForwardOutcomes.COMPLETED, 200, true, null);
        decide.process(fine);
        assertThat(ATTEMPT_PENDING.get(fine)).isFalse();
        assertThat(meters.find("caravan.retries").counters()).isEmpty();
    }

    @Test
    void theBackoffWaitsOnTheSchedulerWithoutBlocking() throws Exception {
        ManualScheduler scheduler = new ManualScheduler();
        AwaitBackoffProcessor await = new AwaitBackoffProcessor(scheduler);
        Exchange e = begun();
        AtomicInteger done = new AtomicInteger();

        assertThat(await.process(e, sync -> done.incrementAndGet())).as("first attempt: no wait").isTrue();
        assertThat(done).hasValue(1);

        attemptEnded(e, a, ForwardOutcomes.RETRYABLE_STATUS, 502, false, null);
        decide.process(e);
        assertThat(await.process(e, sync -> done.incrementAndGet())).isFalse();
        scheduler.advance(99);
        assertThat(done).hasValue(1);
        scheduler.advance(1);
        assertThat(done).hasValue(2);
        assertThat(RetryState.of(e).nextDelayMillis()).isZero();
    }
}
