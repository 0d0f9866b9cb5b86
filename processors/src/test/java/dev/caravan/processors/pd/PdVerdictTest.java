package dev.caravan.processors.pd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import org.junit.jupiter.api.Test;

class PdVerdictTest {

    static LegResult prefill(int status) {
        return LegResult.response(Leg.PREFILL, status, MultiMap.caseInsensitiveMultiMap(), Buffer.buffer("{}"), null);
    }

    static LegResult decode(int status) {
        return LegResult.response(Leg.DECODE, status, MultiMap.caseInsensitiveMultiMap(), null, null);
    }

    static LegResult failed(Leg leg, LegResult.Kind kind) {
        return LegResult.failed(leg, kind, "test");
    }

    @Test
    void prefillOkThenDecodeAnswersIsDecodesResponse() {
        PdVerdict v = PdVerdict.decide(prefill(200), decode(200), Leg.PREFILL, false);
        assertThat(v.kind()).isEqualTo(PdVerdict.Kind.DECODE_RESPONSE);
        assertThat(v.earlyRejection()).isFalse();
    }

    @Test
    void aDecodeErrorAfterASuccessfulPrefillIsStillDecodesResponse() {
        PdVerdict v = PdVerdict.decide(prefill(200), decode(503), Leg.PREFILL, false);
        assertThat(v.kind()).isEqualTo(PdVerdict.Kind.DECODE_RESPONSE);
        assertThat(v.earlyRejection()).isFalse();
    }

    @Test
    void aDecodeErrorFirstIsAnEarlyRejectionWithDecodesResponse() {
        PdVerdict v = PdVerdict.decide(failed(Leg.PREFILL, LegResult.Kind.CANCELLED), decode(400), Leg.DECODE, false);
        assertThat(v.kind()).isEqualTo(PdVerdict.Kind.DECODE_RESPONSE);
        assertThat(v.earlyRejection()).isTrue();
    }

    @Test
    void aDecodeTransportFailureFirstIsAnEarlyRejectionAs502() {
        PdVerdict v = PdVerdict.decide(failed(Leg.PREFILL, LegResult.Kind.CANCELLED),
                failed(Leg.DECODE, LegResult.Kind.TRANSPORT_ERROR), Leg.DECODE, false);
        assertThat(v.kind()).isEqualTo(PdVerdict.Kind.DECODE_FAILED);
        assertThat(v.earlyRejection()).isTrue();
    }

    @Test
    void aSuccessfulDecodeHeadFirstWaitsForPrefillsVerdict() {
        assertThat(PdVerdict.decide(prefill(200), decode(200), Leg.DECODE, false).kind())
                .isEqualTo(PdVerdict.Kind.DECODE_RESPONSE);
        assertThat(PdVerdict.decide(prefill(500), decode(200), Leg.DECODE, false).kind())
                .isEqualTo(PdVerdict.Kind.PREFILL_FAILED);
    }

    @Test
    void aPrefill4xxIsForwardedAsIs() {
        PdVerdict v = PdVerdict.decide(prefill(400), failed(Leg.DECODE, LegResult.Kind.CANCELLED), Leg.PREFILL, false);
        assertThat(v.kind()).isEqualTo(PdVerdict.Kind.PREFILL_REJECTED);
    }

    @Test
    void aPrefill5xxTransportErrorOrTimeoutIsAPrefillFailure() {
        LegResult cancelled = failed(Leg.DECODE, LegResult.Kind.CANCELLED);
        assertThat(PdVerdict.decide(prefill(500), cancelled, Leg.PREFILL, false).kind())
                .isEqualTo(PdVerdict.Kind.PREFILL_FAILED);
        assertThat(PdVerdict.decide(failed(Leg.PREFILL, LegResult.Kind.TRANSPORT_ERROR), cancelled, Leg.PREFILL,
                false).kind()).isEqualTo(PdVerdict.Kind.PREFILL_FAILED);
        assertThat(PdVerdict.decide(failed(Leg.PREFILL, LegResult.Kind.TIMEOUT), cancelled, Leg.PREFILL, false)
                .kind()).isEqualTo(PdVerdict.Kind.PREFILL_FAILED);
    }

    @Test
    void aCancelledDecodeFirstIsNotAnEarlyRejection() {
        // the client left: the decode leg's cancellation may be aggregated first
        PdVerdict v = PdVerdict.decide(failed(Leg.PREFILL, LegResult.Kind.CANCELLED),
                failed(Leg.DECODE, LegResult.Kind.CANCELLED), Leg.DECODE, true);
        assertThat(v.kind()).isEqualTo(PdVerdict.Kind.CLIENT_GONE);
    }

    @Test
    void prefillOkAndDecodeWithoutResponseIsADecodeFailure() {
        assertThat(PdVerdict.decide(prefill(200), failed(Leg.DECODE, LegResult.Kind.TIMEOUT), Leg.PREFILL, false)
                .kind()).isEqualTo(PdVerdict.Kind.DECODE_FAILED);
    }

    @Test
    void needsBothLegs() {
        assertThatThrownBy(() -> PdVerdict.decide(prefill(200), null, Leg.PREFILL, false))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("both legs");
    }
}
