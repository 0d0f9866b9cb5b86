package dev.caravan.processors.forward;

import static dev.caravan.processors.CaravanExchangeProperties.OUTCOME;
import static dev.caravan.processors.CaravanExchangeProperties.RESPONSE_COMMITTED;
import static dev.caravan.processors.CaravanExchangeProperties.RESPONSE_END_NANOS;
import static dev.caravan.processors.CaravanExchangeProperties.RESPONSE_STATUS;
import static dev.caravan.processors.CaravanExchangeProperties.TTFB_NANOS;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientResponse;
import org.apache.camel.Exchange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.caravan.components.http.RequestCompletion;
import dev.caravan.processors.StartedCamel;
import dev.caravan.processors.error.GatewayError;
import dev.caravan.processors.error.GatewayException;
import dev.caravan.processors.time.DelayScheduler;
import dev.caravan.processors.time.ManualScheduler;
import dev.caravan.processors.tuning.RouteEnds;

/**
 * The relay state machine on a hand-moved clock: request timeout 10 s, idle limit 2 s, attempt limit 5 s; the request
 * arrived at time 0 unless a test says otherwise. Nothing sleeps; every event runs on the test thread.
 */
class RelayCoreTest {

    @RegisterExtension
    static final StartedCamel CAMEL = new StartedCamel();

    private static final String WORKER = "http://w:1";

    private final ManualScheduler timers = new ManualScheduler();
    private final RelayTiming timing = new RelayTiming(timers::nanoTime, timers, Duration.ofSeconds(10),
            Duration.ofSeconds(2), Duration.ofSeconds(5));
    private final Exchange exchange = CAMEL.exchange();
    private final FakeHttp.Client client = new FakeHttp.Client();
    private final List<String> finished = new ArrayList<>();
    private int callbacks;
    private UnaryOperator<Buffer> rewrite = UnaryOperator.identity();
    private Buffer tail = Buffer.buffer();
    private boolean answers;
    private final RouteEnds ends = new RouteEnds(timers);

    private final RelayCore.Hooks hooks = new RelayCore.Hooks() {
        @Override
        public void onHead(HttpClientResponse upstream, MultiMap headers) {
            headers.set("X-Caravan-Worker", WORKER);
        }

        @Override
        public Buffer onChunk(Buffer chunk) {
            return rewrite.apply(chunk);
        }

        @Override
        public Buffer onEnd() {
            return tail;
        }

        @Override
        public void finished(String outcome) {
            finished.add(outcome);
        }

        @Override
        public RouteEnds routeEnds() {
            return answers ? ends : null;
        }
    };

    private RelayCore relay(boolean streamed, long arrivalNanos) {
        return new RelayCore(exchange, doneSync -> callbacks++, client.response, timing, arrivalNanos, streamed, WORKER,
                hooks);
    }

    /** A relay that has begun, with its upstream request attached. */
    private RelayCore begun(boolean streamed, FakeHttp.Upstream upstream) {
        RelayCore core = relay(streamed, 0);
        assertThat(core.begin()).isTrue();
        assertThat(core.attach(upstream.request)).isTrue();
        return core;
    }

    private void assertFinishedOnce(String outcome) {
        assertThat(finished).containsExactly(outcome);
        assertThat(callbacks).isEqualTo(1);
        assertThat(OUTCOME.get(exchange)).isEqualTo(outcome);
        assertThat(timers.pending()).as("no timer left behind").isZero();
    }

    private GatewayException failure() {
        return (GatewayException) exchange.getException();
    }

    @Test
    void aCompletedStreamRelaysHeadAndChunksAndRecordsTtfb() {
        FakeHttp.Upstream up = new FakeHttp.Upstream(200, "text/event-stream");
        up.headers.set("connection", "keep-alive");
        RelayCore core = begun(true, up);
        timers.advance(300);

        core.stream(up.response);
        up.chunk("data: a\n\n");
        up.chunk("data: b\n\n");
        up.end();

        assertThat(client.status).isEqualTo(200);
        assertThat(client.headers.get("content-type")).isEqualTo("text/event-stream");
        assertThat(client.headers.contains("connection")).as("hop-by-hop headers stay behind").isFalse();
        assertThat(client.headers.get("X-Caravan-Worker")).isEqualTo(WORKER);
        assertThat(client.chunked).isTrue();
        assertThat(client.text()).isEqualTo("data: a\n\ndata: b\n\n");
        assertThat(client.ended).isTrue();
        assertThat(TTFB_NANOS.get(exchange)).isEqualTo(300_000_000L);
        assertThat(RESPONSE_COMMITTED.get(exchange)).isEqualTo(true);
        assertThat(RESPONSE_STATUS.get(exchange)).isEqualTo(200);
        assertThat(exchange.getException()).isNull();
        assertFinishedOnce(ForwardOutcomes.COMPLETED);
    }

    @Test
    void aNonStreamedAnswerReadAtOnceLeavesInOneWriteWithItsHead() {
        FakeHttp.Upstream up = new FakeHttp.Upstream(200, "application/json");
        RelayCore core = begun(false, up);

        core.stream(up.response);
        up.chunk("{\"id\":");
        up.chunk("\"x\"}");
        up.end();
        timers.settle();

        assertThat(client.messages).containsExactly("head+body+end");
        assertThat(client.text()).isEqualTo("{\"id\":\"x\"}");
        assertFinishedOnce(ForwardOutcomes.COMPLETED);
    }

    @Test
    void aStreamsHeadAndEventsLeaveOnceTheReadThatBroughtThemIsHandled() {
        FakeHttp.Upstream up = new FakeHttp.Upstream(200, "text/event-stream");
        RelayCore core = begun(true, up);

        core.stream(up.response);
        assertThat(client.messages).as("held while the read is handled").isEmpty();
        timers.settle();
        assertThat(client.messages).containsExactly("head");

        up.chunk("data: a\n\n");
        up.chunk("data: b\n\n");
        assertThat(client.text()).isEmpty();
        timers.settle();
        assertThat(client.messages).containsExactly("head", "body");
        assertThat(client.text()).isEqualTo("data: a\n\ndata: b\n\n");

        up.chunk("data: [DONE]\n\n");
        up.end();
        timers.settle();
        assertThat(client.messages).containsExactly("head", "body", "body+end");
        assertFinishedOnce(ForwardOutcomes.COMPLETED);
    }

    @Test
    void eventsHeldWhenTheWorkerBreaksReachTheClientBeforeTheCut() {
        FakeHttp.Upstream up = new FakeHttp.Upstream(200, "text/event-stream");
        RelayCore core = begun(true, up);
        core.stream(up.response);
        up.chunk("data: a\n\n");

        up.fail(new IOException("connection reset"));
        timers.settle();

        assertThat(client.messages).containsExactly("head+body");
        assertThat(client.text()).isEqualTo("data: a\n\n");
        assertThat(client.reset).isTrue();
        assertFinishedOnce(ForwardOutcomes.UPSTREAM_FAILED);
    }

    @Test
    void aClientThatLeavesWhileAnEventIsHeldGetsNothingMore() {
        FakeHttp.Upstream up = new FakeHttp.Upstream(200, "text/event-stream");
        RelayCore core = begun(true, up);
        core.stream(up.response);
        up.chunk("data: a\n\n");

        client.close();
        timers.settle();

        assertThat(client.messages).isEmpty();
        assertThat(up.requestReset).isTrue();
        assertFinishedOnce(ForwardOutcomes.CLIENT_CLOSED);
    }

    @Test
    void theDeadlineBeforeTheHeadIsA504Timeout() {
        FakeHttp.Upstream up = new FakeHttp.Upstream(200, null);
        relay(true, -9_000_000_000L).begin(); // arrived 9 s ago: 1 s left, before the 2 s idle limit

        timers.advance(999);
        assertThat(finished).isEmpty();
        timers.advance(1);

        assertThat(failure().error()).isEqualTo(GatewayError.UPSTREAM_TIMEOUT);
        assertThat(failure().getMessage())
                .isEqualTo("no response within the request timeout of 10 s (last worker http://w:1)");
        assertThat(client.headWritten).isFalse();
        assertFinishedOnce(ForwardOutcomes.TIMEOUT);
        assertThat(up.requestReset).isFalse(); // never attached: nothing to reset
    }

    @Test
    void aStreamedRequestSilentBeforeItsHeadIsA504IdleTimeout() {
        FakeHttp.Upstream up = new FakeHttp.Upstream(200, null);
        begun(true, up);

        timers.advance(1_999);
        assertThat(finished).isEmpty();
        timers.advance(1);

        assertThat(failure().error()).isEqualTo(GatewayError.UPSTREAM_TIMEOUT);
        assertThat(failure().getMessage()).isEqualTo("worker http://w:1 sent nothing for 2 s");
        assertThat(up.requestReset).isTrue();
        assertFinishedOnce(ForwardOutcomes.IDLE_TIMEOUT);
    }

    @Test
    void aNonStreamedRequestWaitsForItsHeadUntilTheAttemptLimit() {
        FakeHttp.Upstream up = new FakeHttp.Upstream(200, null);
        begun(false, up);

        timers.advance(4_999);
        assertThat(finished).as("silence before a non-streamed head is not idleness").isEmpty();
        timers.advance(1);

        assertThat(failure().getMessage()).isEqualTo("worker http://w:1 did not answer within 5 s");
        assertThat(up.requestReset).isTrue();
        assertFinishedOnce(ForwardOutcomes.ATTEMPT_TIMEOUT);
    }

    @Test
    void theHeadOfANonStreamedResponseStartsItsIdleLimit() {
        FakeHttp.Upstream up = new FakeHttp.Upstream(200, "application/json");
        RelayCore core = begun(false, up);
        timers.advance(1_000);
        core.stream(up.response);

        timers.advance(1_999);
        assertThat(finished).isEmpty();
        timers.advance(1);

        assertThat(client.reset).as("a JSON body cannot carry an error event").isTrue();
        assertFinishedOnce(ForwardOutcomes.IDLE_TIMEOUT);
    }

    @Test
    void theDeadlineWhileStreamingEndsAnSseStreamWithAFinalErrorEvent() {
        FakeHttp.Upstream up = new FakeHttp.Upstream(200, "text/event-stream");
        RelayCore core = relay(true, -9_000_000_000L);
        core.begin();
        core.stream(up.response);
        up.chunk("data: a\n\n");

        timers.advance(1_000);

        assertThat(client.text()).startsWith("data: a\n\ndata: {\"error\":").contains("\"code\":\"upstream_timeout\"")
                .contains("request exceeded 10 s").endsWith("\n\n");
        assertThat(client.ended).isTrue();
        assertThat(client.reset).isFalse();
        assertThat(up.requestReset).isTrue();
        assertThat(exchange.getException()).as("the head is out: nothing left for the error handler").isNull();
        assertFinishedOnce(ForwardOutcomes.TIMEOUT);
    }

    @Test
    void chunksPushTheIdleLimitBackUntilTheWorkerFallsSilent() {
        FakeHttp.Upstream up = new FakeHttp.Upstream(200, "text/event-stream");
        RelayCore core = begun(true, up);
        core.stream(up.response);

        timers.advance(1_500);
        up.chunk("data: a\n\n");
        timers.advance(1_500);
        up.chunk("data: b\n\n");
        timers.advance(1_999);
        assertThat(finished).isEmpty();
        timers.advance(1);

        assertThat(client.text()).endsWith("worker sent nothing for 2 s\"}}\n\n");
        assertFinishedOnce(ForwardOutcomes.IDLE_TIMEOUT);
    }

    @Test
    void aClientThatLeavesCancelsTheUpstreamWith499() {
        FakeHttp.Upstream up = new FakeHttp.Upstream(200, "text/event-stream");
        RelayCore core = begun(true, up);
        core.stream(up.response);

        client.close();
        up.chunk("data: late\n\n");
        up.end();

        assertThat(up.requestReset).isTrue();
        assertThat(RESPONSE_STATUS.get(exchange)).isEqualTo(499);
        assertThat(RESPONSE_COMMITTED.get(exchange)).isEqualTo(true);
        assertThat(client.text()).as("nothing written after the client left").isEmpty();
        assertFinishedOnce(ForwardOutcomes.CLIENT_CLOSED);
    }

    @Test
    void aClientGoneBeforeTheRelayBeganGetsNoUpstreamRequest() {
        FakeHttp.Upstream up = new FakeHttp.Upstream(200, null);
        client.closed = true;
        RelayCore core = relay(true, 0);

        assertThat(core.begin()).isFalse();
        assertThat(core.attach(up.request)).as("a connection that arrives later is closed at once").isFalse();

        assertThat(up.requestReset).isTrue();
        assertFinishedOnce(ForwardOutcomes.CLIENT_CLOSED);
    }

    @Test
    void aClientThatLeavesWhileAConnectionIsOpenedGetsItClosedOnArrival() {
        FakeHttp.Upstream up = new FakeHttp.Upstream(200, null);
        RelayCore core = relay(true, 0);
        core.begin();

        client.close();
        assertFinishedOnce(ForwardOutcomes.CLIENT_CLOSED);
        assertThat(core.attach(up.request)).isFalse();

        assertThat(up.requestReset).isTrue();
        assertThat(finished).hasSize(1);
    }

    @Test
    void anUpstreamFailureBeforeTheHeadIsA502() {
        RelayCore core = relay(true, 0);
        core.begin();

        core.failBeforeHead(new IOException("Connection refused"));
        core.failBeforeHead(new IOException("reported twice"));

        assertThat(failure().error()).isEqualTo(GatewayError.UPSTREAM_FAILED);
        assertThat(failure().getMessage()).isEqualTo("worker http://w:1 failed: Connection refused");
        assertFinishedOnce(ForwardOutcomes.UPSTREAM_FAILED);
    }

    @Test
    void anUpstreamFailureWhileStreamingResetsTheClient() {
        FakeHttp.Upstream up = new FakeHttp.Upstream(200, "text/event-stream");
        RelayCore core = begun(true, up);
        core.stream(up.response);
        up.chunk("data: a\n\n");

        up.fail(new IOException("Connection reset"));

        assertThat(client.reset).as("a truncated stream must not look complete").isTrue();
        assertThat(client.ended).isFalse();
        assertThat(up.requestReset).isTrue();
        assertFinishedOnce(ForwardOutcomes.UPSTREAM_FAILED);
    }

    @Test
    void finishRunsOnceWhenTheResetOfATimeoutClosesTheClientConnection() {
        client.closeOnReset = true; // the close handler fires re-entrantly, from inside the timer's own reset
        FakeHttp.Upstream up = new FakeHttp.Upstream(200, "application/json");
        RelayCore core = begun(true, up);
        core.stream(up.response);

        timers.advance(2_000);
        up.end();
        up.fail(new IOException("late failure"));

        assertThat(client.closed).isTrue();
        assertThat(RESPONSE_STATUS.get(exchange)).as("not turned into a 499")
                .isEqualTo(200);
        assertFinishedOnce(ForwardOutcomes.IDLE_TIMEOUT);
    }

    @Test
    void aFullClientWriteQueuePausesTheUpstreamUntilItDrains() {
        FakeHttp.Upstream up = new FakeHttp.Upstream(200, "text/event-stream");
        RelayCore core = begun(true, up);
        core.stream(up.response);
        assertThat(up.paused).isFalse();

        client.writeQueueFull = true;
        up.chunk("data: a\n\n");
        timers.settle();
        assertThat(up.paused).isTrue();
        client.drain();

        assertThat(up.paused).isFalse();
        assertThat(client.text()).isEqualTo("data: a\n\n");
    }

    @Test
    void aRewriterMayHoldBytesBackUntilTheEnd() {
        rewrite = chunk -> Buffer.buffer();
        tail = Buffer.buffer("{\"whole\":true}");
        FakeHttp.Upstream up = new FakeHttp.Upstream(200, "application/json");
        RelayCore core = begun(false, up);
        core.stream(up.response);

        up.chunk("{\"wh");
        assertThat(client.text()).isEmpty();
        up.chunk("ole\":true}");
        up.end();

        assertThat(client.text()).isEqualTo("{\"whole\":true}");
        assertFinishedOnce(ForwardOutcomes.COMPLETED);
    }

    @Test
    void aDiscardedStatusReachesNoClient() {
        FakeHttp.Upstream up = new FakeHttp.Upstream(503, "application/json");
        RelayCore core = begun(true, up);

        core.discard(up.response);

        assertThat(client.headWritten).isFalse();
        assertThat(up.requestReset).isTrue();
        assertThat(RESPONSE_STATUS.get(exchange)).isEqualTo(503);
        assertThat(exchange.getException()).isNull();
        assertFinishedOnce(ForwardOutcomes.RETRYABLE_STATUS);
    }

    @Test
    void theTimerIsSetForTheFirstWholeMillisecondAtOrAfterTheLimit() {
        RelayTiming deadlineOnly = new RelayTiming(timers::nanoTime, timers, Duration.ofSeconds(10), Duration.ZERO,
                Duration.ZERO);
        RelayCore core = new RelayCore(exchange, doneSync -> callbacks++, client.response, deadlineOnly, -500_000L,
                true, WORKER, hooks); // arrived half a millisecond ago: the deadline is at 9,999.5 ms
        core.begin();

        assertThat(timers.nextDueMillis()).hasValue(10_000); // rounded up: never before the deadline
        timers.advance(9_999);
        assertThat(finished).isEmpty();
        timers.advance(1);
        assertFinishedOnce(ForwardOutcomes.TIMEOUT);
    }

    @Test
    void aNonStreamedAnswerEndingInTheReadOfItsHeadSetsOneTimerAndCancelsItOnce() {
        List<String> calls = new ArrayList<>();
        DelayScheduler counted = new DelayScheduler() {
            @Override
            public Scheduled schedule(long delayMillis, Runnable task) {
                calls.add("schedule " + delayMillis);
                Scheduled scheduled = timers.schedule(delayMillis, task);
                return () -> {
                    calls.add("cancel");
                    scheduled.cancel();
                };
            }

            @Override
            public void runSoon(Runnable task) {
                timers.runSoon(task);
            }
        };
        FakeHttp.Upstream up = new FakeHttp.Upstream(200, "application/json");
        RelayCore core = new RelayCore(exchange, doneSync -> callbacks++, client.response, new RelayTiming(
                timers::nanoTime, counted, timing.requestTimeout(), timing.idleTimeout(), timing.attemptTimeout()), 0,
                false, WORKER, hooks);
        core.begin();
        core.attach(up.request);

        core.stream(up.response);
        up.chunk("{}");
        up.end();
        timers.settle();

        assertThat(calls).containsExactly("schedule 5000", "cancel"); // the attempt limit; no re-arm at the head
        assertFinishedOnce(ForwardOutcomes.COMPLETED);
    }

    @Test
    void theHeadRearmsTheTimerForTheIdleLimitOnceItsWriteTurnComes() {
        FakeHttp.Upstream up = new FakeHttp.Upstream(200, "application/json");
        RelayCore core = begun(false, up);
        timers.advance(1_000);

        core.stream(up.response);
        assertThat(timers.nextDueMillis()).hasValue(5_000); // still the attempt limit's
        timers.settle();

        assertThat(timers.nextDueMillis()).hasValue(3_000); // the idle limit's, from the head
        assertThat(timers.pending()).isEqualTo(1);
    }

    @Test
    void limitsBeyondTheLargestAreClampedToIt() {
        long max = Long.MAX_VALUE / 4;
        assertThat(RelayCore.nanos(Duration.ZERO)).isZero();
        assertThat(RelayCore.nanos(Duration.ofSeconds(1800))).isEqualTo(1_800_000_000_000L);
        assertThat(RelayCore.nanos(Duration.ofNanos(max - 1))).isEqualTo(max - 1);
        assertThat(RelayCore.nanos(Duration.ofNanos(max))).isEqualTo(max);
        assertThat(RelayCore.nanos(Duration.ofSeconds(max / 1_000_000_000L + 1))).isEqualTo(max);
        assertThat(RelayCore.nanos(Duration.ofSeconds(Long.MAX_VALUE))).isEqualTo(max);
    }

    @Test
    void millisecondsRoundUp() {
        assertThat(RelayCore.ceilMillis(-5)).isZero();
        assertThat(RelayCore.ceilMillis(0)).isZero();
        assertThat(RelayCore.ceilMillis(1)).isEqualTo(1);
        assertThat(RelayCore.ceilMillis(1_000_000)).isEqualTo(1);
        assertThat(RelayCore.ceilMillis(1_000_001)).isEqualTo(2);
    }

    @Test
    void anAnswerCompletesTheRequestWhenItsResponseEndsAndTheRouteResumesAMillisecondLaterAtTheLatest() {
        answers = true;
        List<String> completed = new ArrayList<>();
        RequestCompletion.onDone(exchange, e -> completed.add("released at " + timers.nanoTime()));
        FakeHttp.Upstream up = new FakeHttp.Upstream(200, "application/json");
        RelayCore core = begun(false, up);
        timers.advance(40);

        core.stream(up.response);
        up.chunk("{}");
        up.end();

        assertThat(client.ended).isTrue();
        assertThat(finished).containsExactly(ForwardOutcomes.COMPLETED);
        assertThat(completed).containsExactly("released at 40000000");
        assertThat(RESPONSE_END_NANOS.get(exchange)).isEqualTo(40_000_000L);
        assertThat(callbacks).as("Camel's continuation waits for the loop's next request, or the timer").isZero();
        assertThat(timers.pending()).isEqualTo(1);

        timers.advance(1);
        assertThat(callbacks).isEqualTo(1);
        assertThat(timers.pending()).isZero();
        exchange.getExchangeExtension().handoverCompletions().forEach(s -> s.onComplete(exchange));
        assertThat(completed).as("the tasks ran once").hasSize(1);
    }

    @Test
    void anAnswersRouteResumesOnceTheLoopHasSentItsNextRequestAndItsTimerIsCancelled() {
        answers = true;
        FakeHttp.Upstream up = new FakeHttp.Upstream(200, "application/json");
        RelayCore core = begun(false, up);
        core.stream(up.response);
        up.chunk("{}");
        up.end();
        assertThat(callbacks).isZero();

        ends.runPending();

        assertThat(callbacks).isEqualTo(1);
        assertThat(timers.pending()).as("the fallback timer is cancelled").isZero();
        ends.runPending();
        timers.advance(5);
        assertThat(callbacks).as("resumed once").isEqualTo(1);
    }

    @Test
    void anAnswerThatFailsHandsTheExchangeBackAtOnceAndLeavesTheTasksToItsCompletion() {
        answers = true;
        List<String> completed = new ArrayList<>();
        RequestCompletion.onDone(exchange, e -> completed.add("released"));
        FakeHttp.Upstream up = new FakeHttp.Upstream(200, "text/event-stream");
        RelayCore core = begun(true, up);

        core.stream(up.response);
        up.chunk("data: a\n\n");
        up.fail(new IOException("connection reset"));

        assertFinishedOnce(ForwardOutcomes.UPSTREAM_FAILED);
        assertThat(completed).isEmpty();
        assertThat(RESPONSE_END_NANOS.get(exchange)).isNull();
    }

    @Test
    void aCompletedResponseThatIsNotTheAnswerHandsTheExchangeBackAtOnce() {
        List<String> completed = new ArrayList<>();
        RequestCompletion.onDone(exchange, e -> completed.add("released"));
        FakeHttp.Upstream up = new FakeHttp.Upstream(200, "application/json");
        RelayCore core = begun(false, up);

        core.stream(up.response);
        up.chunk("{}");
        up.end();

        assertFinishedOnce(ForwardOutcomes.COMPLETED);
        assertThat(completed).isEmpty();
        assertThat(RESPONSE_END_NANOS.get(exchange)).isNull();
    }
}
