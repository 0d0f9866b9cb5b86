package dev.caravan.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import dev.caravan.bench.drive.ReuseTracker;
import dev.caravan.bench.workload.TextSource;

class ReuseTrackerTest {

    private final ReuseTracker tracker = new ReuseTracker(16, 4);

    @Test
    void aNewPromptReusesNothing() {
        assertThat(tracker.admit(TextSource.text(1, 640))).isZero();
    }

    @Test
    void aRepeatedPromptReusesAllButItsLastBlockWhenBlockAligned() {
        String p = TextSource.text(1, 640);
        tracker.admit(p);
        assertThat(tracker.admit(p)).isEqualTo(144);
    }

    @Test
    void aRepeatedPromptReusesEveryFullBlockWhenNotAligned() {
        String p = TextSource.text(1, 650);
        tracker.admit(p);
        assertThat(tracker.admit(p)).isEqualTo(160);
    }

    @Test
    void aSharedPrefixIsReusedUpToTheFirstDifferentBlock() {
        String prefix = TextSource.text(1, 256);
        tracker.admit(prefix + TextSource.text(2, 300));
        assertThat(tracker.admit(prefix + TextSource.text(3, 300))).isEqualTo(64);
    }

    @Test
    void aRememberedAnswerIsReusedByTheNextTurn() {
        String turn1 = TextSource.text(1, 320);
        String answer = TextSource.text(9, 128);
        tracker.admit(turn1);
        tracker.remember(turn1 + answer);
        assertThat(tracker.admit(turn1 + answer + TextSource.text(5, 100))).isEqualTo(112);
    }
}
