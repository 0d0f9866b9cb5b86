package dev.caravan.processors.pd;

import static org.assertj.core.api.Assertions.assertThat;
import static dev.caravan.processors.pd.PdVerdictTest.decode;
import static dev.caravan.processors.pd.PdVerdictTest.failed;
import static dev.caravan.processors.pd.PdVerdictTest.prefill;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

class LegOutcomesTest {

    private static PdVerdict verdict(LegResult p, LegResult d, Leg first) {
        return PdVerdict.decide(p, d, first, false);
    }

    @Test
    void fourHundredsAreNeutralForBothLegs() {
        assertThat(LegOutcomes.prefill(verdict(prefill(404), failed(Leg.DECODE, LegResult.Kind.CANCELLED),
                Leg.PREFILL))).isTrue();
        assertThat(LegOutcomes.decodeStream(400, DecodeRelay.COMPLETED)).isTrue();
    }

    @Test
    void decodeIsNotJudgedWhenPrefillFailedFirst() {
        PdVerdict v = verdict(prefill(500), failed(Leg.DECODE, LegResult.Kind.CANCELLED), Leg.PREFILL);
        assertThat(LegOutcomes.prefill(v)).isFalse();
        assertThat(LegOutcomes.decodeAtVerdict(v)).isNull();
    }

    @Test
    void aCancelledPrefillIsNotJudged() {
        PdVerdict v = verdict(failed(Leg.PREFILL, LegResult.Kind.CANCELLED), decode(503), Leg.DECODE);
        assertThat(LegOutcomes.prefill(v)).isNull();
    }

    @Test
    void aDecodeWithoutResponseIsAFailureAtTheVerdict() {
        PdVerdict v = verdict(prefill(200), failed(Leg.DECODE, LegResult.Kind.TRANSPORT_ERROR), Leg.PREFILL);
        assertThat(LegOutcomes.prefill(v)).isTrue();
        assertThat(LegOutcomes.decodeAtVerdict(v)).isFalse();
    }

    @Test
    void aStreamedDecodeIsJudgedByHowTheStreamEnded() {
        assertThat(LegOutcomes.decodeStream(200, DecodeRelay.COMPLETED)).isTrue();
        assertThat(LegOutcomes.decodeStream(200, DecodeRelay.UPSTREAM_FAILED)).isFalse();
        assertThat(LegOutcomes.decodeStream(200, DecodeRelay.TIMEOUT)).isFalse();
        assertThat(LegOutcomes.decodeStream(200, DecodeRelay.CLIENT_CLOSED)).isNull();
        assertThat(LegOutcomes.decodeStream(503, DecodeRelay.COMPLETED)).isFalse();
    }

    @Test
    void reportsJudgedLegsToThePolicyAndListenersAndSkipsUnjudgedOnes() {
        PdTestPairs.OutcomePolicy policy = new PdTestPairs.OutcomePolicy();
        PdPair pair = PdTestPairs.pair(policy);
        LegOutcomes outcomes = new LegOutcomes();
        List<String> heard = new ArrayList<>();
        outcomes.addListener((leg, worker, success) -> heard.add(leg.wireName() + ":" + success));

        outcomes.report(Leg.PREFILL, pair.prefill(), Boolean.FALSE);
        outcomes.report(Leg.DECODE, pair.decode(), null);

        assertThat(policy.outcomes).containsExactly("http://10.0.0.1:8000=false");
        assertThat(heard).containsExactly("prefill:false");
    }
}
