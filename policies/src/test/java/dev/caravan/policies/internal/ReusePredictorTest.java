package dev.caravan.policies.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@link ReusePredictor}: a context's reuse rate from which of its fresh prompts were continued. */
class ReusePredictorTest {

    /** 100 characters two contexts differ in. */
    private static final String PREAMBLE_A = "A".repeat(100);
    private static final String PREAMBLE_B = "B".repeat(100);
    private static final int CONTEXT = 100;

    /** A fresh prompt after the preamble: its fingerprint covers the first 256 characters beyond it. */
    private static String prompt(String preamble, int n) {
        return preamble + ("conversation " + n + " ").repeat(40);
    }

    /** A continuation of {@link #prompt}: the same text and more. */
    private static String nextTurn(String preamble, int n) {
        return prompt(preamble, n) + " and a second turn";
    }

    @Test
    void anUnknownContextIsNeverPredictedOneOff() {
        ReusePredictor p = new ReusePredictor(4);
        assertThat(p.oneOff(prompt(PREAMBLE_A, 0), CONTEXT)).isFalse();
        assertThat(p.reuseRate(prompt(PREAMBLE_A, 0), CONTEXT)).isNaN();
    }

    @Test
    void promptsPushedOutOfTheWindowUncontinuedMakeTheirContextOneOffAfterMinSamples() {
        ReusePredictor p = new ReusePredictor(4);
        for (int n = 0; n < 4 + ReusePredictor.MIN_SAMPLES - 1; n++) {
            p.fresh(prompt(PREAMBLE_A, n), CONTEXT);
        }
        // 31 closed one-off: not yet enough to predict
        assertThat(p.reuseRate(prompt(PREAMBLE_A, 99), CONTEXT)).isEqualTo(0.0);
        assertThat(p.oneOff(prompt(PREAMBLE_A, 99), CONTEXT)).isFalse();
        p.fresh(prompt(PREAMBLE_A, 1000), CONTEXT);
        assertThat(p.oneOff(prompt(PREAMBLE_A, 99), CONTEXT)).isTrue();
        assertThat(p.oneOff(prompt(PREAMBLE_B, 99), CONTEXT)).isFalse();
    }

    @Test
    void aContinuedPromptClosesAsReusedOnlyWhenItLeavesTheWindowLikeEveryOther() {
        ReusePredictor p = new ReusePredictor(2);
        p.fresh(prompt(PREAMBLE_A, 1), CONTEXT);
        String next = nextTurn(PREAMBLE_A, 1);
        p.continued(next, CONTEXT, next.length());
        assertThat(p.reuseRate(prompt(PREAMBLE_A, 9), CONTEXT)).isNaN(); // still open: not counted early
        p.fresh(prompt(PREAMBLE_A, 2), CONTEXT);
        p.fresh(prompt(PREAMBLE_A, 3), CONTEXT); // pushes prompt 1 out, reused
        assertThat(p.reuseRate(prompt(PREAMBLE_A, 9), CONTEXT)).isEqualTo(1.0);
        p.continued(next, CONTEXT, next.length()); // closed already: counts nothing
        p.fresh(prompt(PREAMBLE_A, 4), CONTEXT); // pushes prompt 2 out, one-off
        assertThat(p.reuseRate(prompt(PREAMBLE_A, 9), CONTEXT)).isEqualTo(0.5);
    }

    @Test
    void aMatchShorterThanTheFingerprintDoesNotCountAsAContinuation() {
        ReusePredictor p = new ReusePredictor(1);
        p.fresh(prompt(PREAMBLE_A, 1), CONTEXT);
        String next = nextTurn(PREAMBLE_A, 1);
        p.continued(next, CONTEXT, CONTEXT + ReusePredictor.FINGERPRINT_CHARS - 1);
        p.fresh(prompt(PREAMBLE_A, 2), CONTEXT);
        assertThat(p.reuseRate(prompt(PREAMBLE_A, 9), CONTEXT)).isEqualTo(0.0);
    }

    @Test
    void aContextWithHalfItsPromptsContinuedIsNotOneOffAndOneLessIs() {
        ReusePredictor p = new ReusePredictor(1);
        int samples = ReusePredictor.MIN_SAMPLES;
        for (int n = 0; n < samples; n++) {
            p.fresh(prompt(PREAMBLE_A, n), CONTEXT);
            if (n % 2 == 0) {
                String next = nextTurn(PREAMBLE_A, n);
                p.continued(next, CONTEXT, next.length());
            }
        }
        // prompts 0..30 closed (each fresh prompt pushes the previous one out): the 16 even ones reused
        assertThat(p.reuseRate(prompt(PREAMBLE_A, 0), CONTEXT)).isEqualTo(16.0 / 31);
        p.fresh(prompt(PREAMBLE_A, 500), CONTEXT); // closes prompt 31 one-off: 16 of 32
        assertThat(p.oneOff(prompt(PREAMBLE_A, 0), CONTEXT)).isFalse();
        p.fresh(prompt(PREAMBLE_A, 501), CONTEXT); // 16 of 33
        assertThat(p.oneOff(prompt(PREAMBLE_A, 0), CONTEXT)).isTrue();
    }

    @Test
    void aPromptTooShortToFingerprintIsNotLearnedFrom() {
        ReusePredictor p = new ReusePredictor(1);
        for (int n = 0; n < 100; n++) {
            p.fresh(PREAMBLE_A + "short " + n, CONTEXT);
        }
        assertThat(p.reuseRate(PREAMBLE_A, CONTEXT)).isNaN();
    }

    @Test
    void countsAreHalvedSoTheRateFollowsTheTraffic() {
        ReusePredictor p = new ReusePredictor(1);
        for (int n = 0; n <= ReusePredictor.HALVE_AT; n++) {
            p.fresh(prompt(PREAMBLE_A, n), CONTEXT); // each pushes the previous one out, one-off
        }
        // 1,024 closed one-off, halved to 512 (prompt 1,024 still open); then 100 continued prompts: the first pushes
        // prompt 1,024 out one-off, each next one its continued predecessor: 99 reused of 612 (without the halving,
        // 99 of 1,124)
        for (int n = 0; n < 100; n++) {
            String first = prompt(PREAMBLE_A, 5000 + n);
            p.fresh(first, CONTEXT);
            String next = first + " more";
            p.continued(next, CONTEXT, next.length());
        }
        assertThat(p.reuseRate(prompt(PREAMBLE_A, 0), CONTEXT)).isEqualTo(99.0 / 612);
    }
}
