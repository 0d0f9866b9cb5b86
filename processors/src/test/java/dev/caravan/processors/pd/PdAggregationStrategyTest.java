package dev.caravan.processors.pd;

import static dev.caravan.processors.pd.PdVerdictTest.decode;
import static dev.caravan.processors.pd.PdVerdictTest.failed;
import static dev.caravan.processors.pd.PdVerdictTest.prefill;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The aggregation's decisions, driven leg by leg on a Vert.x context as the multicast drives them. */
class PdAggregationStrategyTest {

    private static final Vertx VERTX = Vertx.vertx();
    private static final CamelContext CAMEL = new DefaultCamelContext();

    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final PdMetrics metrics = new PdMetrics(meters);
    private final PdAggregationStrategy strategy = new PdAggregationStrategy(metrics, new LegOutcomes());
    private final PdTestPairs.OutcomePolicy policy = new PdTestPairs.OutcomePolicy();
    private Context context;
    private PdDispatch dispatch;

    @AfterAll
    static void stop() throws Exception {
        VERTX.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        CAMEL.close();
    }

    @BeforeEach
    void newDispatch() {
        context = VERTX.getOrCreateContext();
        dispatch = new PdDispatch(PdTestPairs.pair(policy), null, context, null, metrics, System.nanoTime(),
                System.nanoTime() + 60_000_000_000L);
    }

    private <T> T onContext(Supplier<T> task) {
        CompletableFuture<T> f = new CompletableFuture<>();
        context.runOnContext(v -> {
            try {
                f.complete(task.get());
            } catch (RuntimeException e) {
                f.completeExceptionally(e);
            }
        });
        return f.join();
    }

    private Exchange leg(LegResult result) {
        Exchange e = new DefaultExchange(CAMEL);
        e.getIn().setBody(result);
        PdDispatch.PROPERTY.set(e, dispatch);
        return e;
    }

    /** Aggregates the legs in order, as the multicast does, and returns the verdict. */
    private PdVerdict aggregate(LegResult... arrivals) {
        return onContext(() -> {
            Exchange result = null;
            for (LegResult r : arrivals) {
                result = strategy.aggregate(result, leg(r));
            }
            strategy.onCompletion(result, null);
            return PdVerdict.PROPERTY.get(result);
        });
    }

    private double counter(String name, String... tags) {
        var c = meters.find(name).tags(tags).counter();
        return c == null ? 0 : c.count();
    }

    @Test
    void anEarlyDecodeErrorCancelsThePrefillAndAnswersWithDecode() {
        PdVerdict v = aggregate(decode(503), failed(Leg.PREFILL, LegResult.Kind.CANCELLED));

        assertThat(v.kind()).isEqualTo(PdVerdict.Kind.DECODE_RESPONSE);
        assertThat(v.earlyRejection()).isTrue();
        assertThat(dispatch.cancellation(Leg.PREFILL)).isEqualTo(PdMetrics.DECODE_REJECTED);
        assertThat(dispatch.cancellation(Leg.DECODE)).isNull();
        assertThat(counter("caravan.pd.early.rejections")).isEqualTo(1);
        assertThat(counter("caravan.pd.failures", "leg", "decode", "reason", "http_5xx")).isEqualTo(1);
        // the cancelled prefill is not judged; decode's answer is judged when the relay has passed it on
        assertThat(policy.outcomes).isEmpty();
    }

    @Test
    void aPrefillFailureCancelsTheDecodeLegAndDoesNotJudgeDecode() {
        PdVerdict v = aggregate(prefill(500), failed(Leg.DECODE, LegResult.Kind.CANCELLED));

        assertThat(v.kind()).isEqualTo(PdVerdict.Kind.PREFILL_FAILED);
        assertThat(dispatch.cancellation(Leg.DECODE)).isEqualTo(PdMetrics.PREFILL_FAILED);
        assertThat(policy.outcomes).containsExactly("http://10.0.0.1:8000=false");
    }

    @Test
    void aPrefill4xxCancelsDecodeButIsNeutralForThePrefillEngine() {
        PdVerdict v = aggregate(prefill(422), failed(Leg.DECODE, LegResult.Kind.CANCELLED));

        assertThat(v.kind()).isEqualTo(PdVerdict.Kind.PREFILL_REJECTED);
        assertThat(dispatch.cancellation(Leg.DECODE)).isEqualTo(PdMetrics.PREFILL_FAILED);
        assertThat(policy.outcomes).containsExactly("http://10.0.0.1:8000=true");
    }

    @Test
    void aSuccessfulPairCancelsNothingAndLeavesDecodeToTheStream() {
        PdVerdict v = aggregate(prefill(200), decode(200));

        assertThat(v.kind()).isEqualTo(PdVerdict.Kind.DECODE_RESPONSE);
        assertThat(v.earlyRejection()).isFalse();
        assertThat(dispatch.cancellation(Leg.PREFILL)).isNull();
        assertThat(dispatch.cancellation(Leg.DECODE)).isNull();
        assertThat(policy.outcomes).containsExactly("http://10.0.0.1:8000=true");
    }

    @Test
    void aDecodeErrorAfterPrefillSucceededIsNotAnEarlyRejection() {
        PdVerdict v = aggregate(prefill(200), decode(500));

        assertThat(v.earlyRejection()).isFalse();
        assertThat(counter("caravan.pd.early.rejections")).isZero();
        assertThat(dispatch.cancellation(Leg.PREFILL)).isNull();
    }

    @Test
    void aLatePrefillFailureDoesNotCancelAnEarlyDecodeRejection() {
        // the decode error stands even if the prefill's own failure arrives before its cancellation
        PdVerdict v = aggregate(decode(400), prefill(500));

        assertThat(v.kind()).isEqualTo(PdVerdict.Kind.DECODE_RESPONSE);
        assertThat(v.earlyRejection()).isTrue();
        assertThat(dispatch.cancellation(Leg.DECODE)).isNull();
    }

    @Test
    void aParkedSuccessfulDecodeHeadIsCancelledWhenPrefillFailsAfterIt() {
        PdVerdict v = aggregate(decode(200), prefill(502));

        assertThat(v.kind()).isEqualTo(PdVerdict.Kind.PREFILL_FAILED);
        assertThat(dispatch.cancellation(Leg.DECODE)).isEqualTo(PdMetrics.PREFILL_FAILED);
    }
}
