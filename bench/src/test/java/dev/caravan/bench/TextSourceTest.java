package dev.caravan.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

import dev.caravan.bench.workload.TextSource;

class TextSourceTest {

    @Test
    void textHasTheExactLengthAndOnlyAscii() {
        for (int n : new int[] {0, 1, 7, 64, 2048, 10_001}) {
            String t = TextSource.text(42, n);
            assertThat(t).hasSize(n);
            assertThat(t.chars().allMatch(c -> c >= 32 && c < 127)).isTrue();
        }
    }

    @Test
    void sameSeedSameTextOtherSeedOtherText() {
        assertThat(TextSource.text(5, 500)).isEqualTo(TextSource.text(5, 500));
        assertThat(TextSource.text(5, 64)).isNotEqualTo(TextSource.text(6, 64));
        assertThat(TextSource.seedOf(1, "tenant", 3)).isNotEqualTo(TextSource.seedOf(1, "tenant", 4))
                .isNotEqualTo(TextSource.seedOf(1, "user", 3));
    }

    @Test
    void rejectsNegativeLengths() {
        assertThatThrownBy(() -> TextSource.text(1, -1)).hasMessageContaining("-1");
    }
}
