package dev.caravan.policies.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

class PrefixHasherTest {

    private static final byte[] KEY = "cluster-secret".getBytes(StandardCharsets.UTF_8);

    @Test
    void boundariesFollowEveryChunkThenGrowByAQuarter() {
        PrefixHasher hasher = new PrefixHasher(KEY);
        // computed independently (python3: ceil(c * 1.25) from 16 while c * 64 <= 100,000)
        assertThat(hasher.boundaryChunks(100_000)).containsExactly(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
                16, 20, 25, 32, 40, 50, 63, 79, 99, 124, 155, 194, 243, 304, 380, 475, 594, 743, 929, 1162, 1453);
    }

    @Test
    void aHundredThousandCharPromptCostsThirtySevenHashes() {
        RoutedPrefix p = new PrefixHasher(KEY).digest("m", "x".repeat(100_000));
        assertThat(p.boundaries()).isEqualTo(37);
        assertThat(p.codePoints()[36]).isEqualTo(100_000);
        assertThat(p.boundaries() * Long.BYTES).isLessThanOrEqualTo(1024);
    }

    @Test
    void textsSharingAPrefixShareTheBoundariesInsideIt() {
        PrefixHasher hasher = new PrefixHasher(KEY);
        String preamble = "You are a helpful assistant for tenant 42. ".repeat(50); // 2,150 chars
        RoutedPrefix a = hasher.digest("m", preamble + "What is the weather?");
        RoutedPrefix b = new PrefixHasher(KEY).digest("m", preamble + "Summarise this contract.");
        // boundaries at 64..1,024 (16), 1,280, 1,600, 2,048: all inside the preamble
        for (int i = 0; i < 19; i++) {
            assertThat(a.hashes()[i]).isEqualTo(b.hashes()[i]);
            assertThat(a.codePoints()[i]).isEqualTo(b.codePoints()[i]);
        }
        assertThat(a.codePoints()[18]).isEqualTo(2048);
        assertThat(a.hashes()[a.boundaries() - 1]).isNotEqualTo(b.hashes()[b.boundaries() - 1]);
    }

    @Test
    void anotherKeyOrModelGivesUnrelatedHashes() {
        String text = "a".repeat(300);
        RoutedPrefix base = new PrefixHasher(KEY).digest("m", text);
        RoutedPrefix otherKey = new PrefixHasher("other".getBytes(StandardCharsets.UTF_8)).digest("m", text);
        RoutedPrefix otherModel = new PrefixHasher(KEY).digest("m2", text);
        for (int i = 0; i < base.boundaries(); i++) {
            assertThat(otherKey.hashes()[i]).isNotEqualTo(base.hashes()[i]);
            assertThat(otherModel.hashes()[i]).isNotEqualTo(base.hashes()[i]);
        }
    }

    @Test
    void lengthsCountSurrogatePairsAsOneCodePoint() {
        String text = "a".repeat(63) + "\uD83D\uDE00" + "b".repeat(10); // the emoji straddles the first chunk's end
        RoutedPrefix p = new PrefixHasher(KEY).digest("m", text);
        assertThat(p.codePoints()).containsExactly(64, 74);
        assertThat(p.inputCodePoints()).isEqualTo(74);
    }

    @Test
    void anEmptyTextHasNoBoundary() {
        RoutedPrefix p = new PrefixHasher(KEY).digest("m", "");
        assertThat(p.boundaries()).isZero();
        assertThat(p.boundaryAtMost(10)).isEqualTo(-1);
    }

    @Test
    void aShortTextHasOnlyItsEnd() {
        RoutedPrefix p = new PrefixHasher(KEY).digest("m", "hello");
        assertThat(p.codePoints()).containsExactly(5);
    }

    @Test
    void rejectsAnEmptyKeyAndBadChunking() {
        assertThatThrownBy(() -> new PrefixHasher(new byte[0])).hasMessageContaining("key must not be empty");
        assertThatThrownBy(() -> new PrefixHasher(KEY, 64, 16, 1.0)).hasMessageContaining("growth > 1");
    }
}
