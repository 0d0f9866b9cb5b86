package dev.caravan.processors.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import dev.caravan.processors.forward.ForwardOutcomes;

class AttemptOutcomeTest {

    @ParameterizedTest(name = "{0} {1} -> {2}")
    @CsvSource(nullValues = "null", value = {
        "completed,200,SUCCESS",
        "completed,204,SUCCESS",
        "completed,400,NEUTRAL",
        "completed,401,NEUTRAL",
        "completed,404,NEUTRAL",
        "completed,408,NEUTRAL",
        "completed,413,NEUTRAL",
        "completed,422,NEUTRAL",
        "completed,429,NEUTRAL",
        "completed,500,FAILURE",
        "completed,502,FAILURE",
        "completed,503,NEUTRAL",
        "completed,504,FAILURE",
        "retryable_status,500,FAILURE",
        "retryable_status,429,NEUTRAL",
        "client_closed,200,NEUTRAL",
        "client_closed,null,NEUTRAL",
        "upstream_failed,null,FAILURE",
        "upstream_failed,200,FAILURE",
        "timeout,null,FAILURE",
        "idle_timeout,200,FAILURE",
        "attempt_timeout,null,FAILURE",
        "null,null,NEUTRAL"})
    void classifiesOnlyTheWorkersOwnFailuresAsFailures(String outcome, Integer status, AttemptOutcome expected) {
        assertThat(AttemptOutcome.classify(outcome, status)).isEqualTo(expected);
    }

    @Test
    void aClientHangingUpIsNeverAFailureWhateverTheStatusSoFar() {
        for (int status : new int[] {200, 500, 502, 504}) {
            assertThat(AttemptOutcome.classify(ForwardOutcomes.CLIENT_CLOSED, status)).isEqualTo(AttemptOutcome.NEUTRAL);
        }
    }
}
