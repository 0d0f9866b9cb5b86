package dev.caravan.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.caravan.bench.drive.EngineTokens;
import dev.caravan.bench.drive.RequestRecord;
import dev.caravan.bench.drive.ReuseTracker;
import dev.caravan.bench.workload.TextSource;
import dev.caravan.sim.text.ModelText;
import dev.caravan.sim.text.SyntheticTokenizer;

class ReuseTrackerTest {

    private static final SyntheticTokenizer SYNTHETIC = new SyntheticTokenizer(4);

    private final ReuseTracker tracker = new ReuseTracker(16, new EngineTokens(ModelText.synthetic(4)));

    @Test
    void aNewPromptReusesNothing() {
        assertThat(tracker.admit(ids(TextSource.text(1, 640)))).isZero();
    }

    @Test
    void aRepeatedPromptReusesAllButItsLastBlockWhenBlockAligned() {
        String p = TextSource.text(1, 640);
        tracker.admit(ids(p));
        assertThat(tracker.admit(ids(p))).isEqualTo(144);
    }

    @Test
    void aRepeatedPromptReusesEveryFullBlockWhenNotAligned() {
        String p = TextSource.text(1, 650);
        tracker.admit(ids(p));
        assertThat(tracker.admit(ids(p))).isEqualTo(160);
    }

    @Test
    void aSharedPrefixIsReusedUpToTheFirstDifferentBlock() {
        String prefix = TextSource.text(1, 256);
        tracker.admit(ids(prefix + TextSource.text(2, 300)));
        assertThat(tracker.admit(ids(prefix + TextSource.text(3, 300)))).isEqualTo(64);
    }

    @Test
    void aRememberedAnswerIsReusedByTheNextTurn() {
        String turn1 = TextSource.text(1, 320);
        String answer = TextSource.text(9, 128);
        tracker.admit(ids(turn1));
        tracker.remember(ids(turn1 + answer));
        assertThat(tracker.admit(ids(turn1 + answer + TextSource.text(5, 100)))).isEqualTo(112);
    }

    @Test
    void withRoomForEverythingBothCeilingsServeWhatAnInfiniteCacheWould() {
        String a = TextSource.text(1, 650);
        String b = TextSource.text(2, 650);
        List<RequestRecord> records = admitAll(a, b, a + TextSource.text(3, 200), b);
        tracker.applyCeilings(records, 1000);
        assertThat(records).extracting(r -> r.reusableTokens).containsExactly(0, 0, 160, 160);
        assertThat(records).extracting(r -> r.pooledLruTokens).containsExactly(0, 0, 160, 160);
        assertThat(records).extracting(r -> r.beladyTokens).containsExactly(0, 0, 160, 160);
    }

    @Test
    void withRoomForOnePromptOnlyBeladyKeepsTheOneThatComesBack() {
        String a = TextSource.text(1, 650);
        List<RequestRecord> records = admitAll(a, TextSource.text(2, 650), a);
        tracker.applyCeilings(records, 10);
        assertThat(records).extracting(r -> r.pooledLruTokens).containsExactly(0, 0, 0);
        assertThat(records).extracting(r -> r.beladyTokens).containsExactly(0, 0, 160);
    }

    private static int[] ids(String text) {
        return SYNTHETIC.encode(text, false);
    }

    private List<RequestRecord> admitAll(String... prompts) {
        List<RequestRecord> records = new ArrayList<>();
        for (String p : prompts) {
            records.add(new RequestRecord(records.size(), false, 0, 0, tracker.admit(ids(p)), 0, null, 0));
        }
        return records;
    }
}
