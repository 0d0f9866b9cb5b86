package dev.caravan.processors.pd;

import static org.assertj.core.api.Assertions.assertThat;
import static dev.caravan.processors.pd.PdVerdictTest.decode;
import static dev.caravan.processors.pd.PdVerdictTest.failed;
import static dev.caravan.processors.pd.PdVerdictTest.prefill;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.caravan.processors.forward.ForwardOutcomes;
import dev.caravan.processors.reliability.AttemptOutcome;

class LegOutcomesTest {

    private static PdVerdict verdict(LegResult p, LegResult d, Leg first) {
        return PdVerdict.decide(p, d, first, false);
    }

    @Test
    void fourHundredsAndBackPressureAreNeutralForBothLegs() {
        assertThat(LegOutcomes.prefill(verdict(prefill(404), failed(Leg.DECODE, LegResult.Kind.CANCELLED),
                Leg.PREFILL))).isEqualTo(AttemptOutcome.NEUTRAL);
        assertThat(LegOutcomes.prefill(verdict(prefill(503), failed(Leg.DECODE, LegResult.Kind.CANCELLED),
                Leg.PREFILL))).isEqualTo(AttemptOutcome.NEUTRAL);
        assertThat(LegOutcomes.decodeStream(400, ForwardOutcomes.COMPLETED)).isEqualTo(AttemptOutcome.NEUTRAL);
        assertThat(LegOutcomes.decodeDiscarded(429)).isEqualTo(AttemptOutcome.NEUTRAL);
    }

    @Test
    void decodeIsNotJudgedWhenPrefillFailedFirst() {
        PdVerdict v = verdict(prefill(500), failed(Leg.DECODE, LegResult.Kind.CANCELLED), Leg.PREFILL);
        assertThat(LegOutcomes.prefill(v)).isEqualTo(AttemptOutcome.FAILURE);
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
        assertThat(LegOutcomes.prefill(v)).isEqualTo(AttemptOutcome.SUCCESS);
        assertThat(LegOutcomes.decodeAtVerdict(v)).isEqualTo(AttemptOutcome.FAILURE);
    }

    @Test
    void aLegThatHitTheAttemptLimitIsAFailure() {
        PdVerdict v = verdict(failed(Leg.PREFILL, LegResult.Kind.ATTEMPT_TIMEOUT),
                failed(Leg.DECODE, LegResult.Kind.CANCELLED), Leg.PREFILL);
        assertThat(LegOutcomes.prefill(v)).isEqualTo(AttemptOutcome.FAILURE);
    }

    @Test
    void aStreamedDecodeIsJudgedByHowTheStreamEnded() {
        assertThat(LegOutcomes.decodeStream(200, ForwardOutcomes.COMPLETED)).isEqualTo(AttemptOutcome.SUCCESS);
        assertThat(LegOutcomes.decodeStream(200, ForwardOutcomes.UPSTREAM_FAILED)).isEqualTo(AttemptOutcome.FAILURE);
        assertThat(LegOutcomes.decodeStream(200, ForwardOutcomes.TIMEOUT)).isEqualTo(AttemptOutcome.FAILURE);
        assertThat(LegOutcomes.decodeStream(200, ForwardOutcomes.IDLE_TIMEOUT)).isEqualTo(AttemptOutcome.FAILURE);
        assertThat(LegOutcomes.decodeStream(200, ForwardOutcomes.CLIENT_CLOSED)).isEqualTo(AttemptOutcome.NEUTRAL);
        assertThat(LegOutcomes.decodeStream(500, ForwardOutcomes.COMPLETED)).isEqualTo(AttemptOutcome.FAILURE);
    }

    @Test
    void reportsJudgedLegsToThePolicyAndListenersAndSkipsUnjudgedOnes() {
        PdTestPairs.OutcomePolicy policy = new PdTestPairs.OutcomePolicy();
        PdPair pair = PdTestPairs.pair(policy);
        LegOutcomes outcomes = new LegOutcomes();
        List<String> heard = new ArrayList<>();
        outcomes.addListener((leg, worker, outcome) -> heard.add(leg.wireName() + ":" + outcome));

        outcomes.report(Leg.PREFILL, pair.prefill(), AttemptOutcome.FAILURE);
        outcomes.report(Leg.DECODE, pair.decode(), null);
        outcomes.report(Leg.DECODE, pair.decode(), AttemptOutcome.NEUTRAL);

        assertThat(policy.outcomes).containsExactly("http://10.0.0.1:8000=false", "http://10.0.0.2:8000=true");
        assertThat(heard).containsExactly("prefill:FAILURE", "decode:NEUTRAL");
    }
}
