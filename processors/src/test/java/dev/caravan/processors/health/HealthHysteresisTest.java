package dev.caravan.processors.health;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

class HealthHysteresisTest {

    /** Feeds a pattern (S = success, F = failure) and returns the state after each probe ('H' / 'U'). */
    private static String run(String pattern, int successThreshold, int failureThreshold, List<String> flips) {
        HealthHysteresis h = new HealthHysteresis(true);
        StringBuilder states = new StringBuilder();
        for (int i = 0; i < pattern.length(); i++) {
            if (h.record(pattern.charAt(i) == 'S', successThreshold, failureThreshold)) {
                flips.add(i + ":" + (h.healthy() ? "healthy" : "unhealthy"));
            }
            states.append(h.healthy() ? 'H' : 'U');
        }
        return states.toString();
    }

    @Test
    void alternatingProbesNeverFlipAHealthyWorker() {
        List<String> flips = new ArrayList<>();
        assertThat(run("FSFSFSFSFSFFSFFS", 2, 3, flips)).isEqualTo("HHHHHHHHHHHHHHHH");
        assertThat(flips).isEmpty();
    }

    @Test
    void flipsOnlyAfterTheConsecutiveThresholdsAndResetsTheCountsOnAFlip() {
        List<String> flips = new ArrayList<>();
        // 3 failures -> unhealthy; S F S S: the F restarts the success count; then S S -> healthy
        String states = run("FFFSFSSFF", 2, 3, flips);
        assertThat(states).isEqualTo("HHUUUUHHH");
        assertThat(flips).containsExactly("2:unhealthy", "6:healthy");
    }

    @Test
    void aFlappingPatternCostsTwoTransitionsNotOnePerProbe() {
        List<String> flips = new ArrayList<>();
        run("FSFFFSFSSSFSF", 2, 3, flips);
        assertThat(flips).containsExactly("4:unhealthy", "8:healthy");
    }

    @Test
    void thresholdsOfOneFollowEveryProbe() {
        List<String> flips = new ArrayList<>();
        assertThat(run("FSFS", 1, 1, flips)).isEqualTo("UHUH");
        assertThat(flips).hasSize(4);
    }

    @Test
    void forcingHealthyClearsTheCounts() {
        HealthHysteresis h = new HealthHysteresis(true);
        h.record(false, 2, 3);
        h.record(false, 2, 3);
        assertThat(h.force(true)).isFalse();
        assertThat(h.record(false, 2, 3)).as("two failures were forgotten").isFalse();
        assertThat(h.healthy()).isTrue();
    }
}
