package dev.caravan.policies.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;

import org.junit.jupiter.api.Test;

class KeyChainTest {

    /** Keys 10, 11, ..., 10 + n - 1 in chunks of four (the last shorter). */
    private static KeyChain chunked(int n) {
        long[][] chunks = new long[(n + 3) / 4][];
        for (int c = 0; c < chunks.length; c++) {
            chunks[c] = new long[Math.min(4, n - 4 * c)];
            for (int i = 0; i < chunks[c].length; i++) {
                chunks[c][i] = 10 + 4 * c + i;
            }
        }
        return KeyChain.ofChunks(chunks, 2, n);
    }

    @Test
    void readsEveryKeyAcrossItsChunks() {
        KeyChain chain = chunked(10);
        assertThat(chain.length()).isEqualTo(10);
        assertThat(chain.get(0)).isEqualTo(10);
        assertThat(chain.get(3)).isEqualTo(13);
        assertThat(chain.get(4)).isEqualTo(14);
        assertThat(chain.get(9)).isEqualTo(19);
        assertThat(chain.toArray()).containsExactly(10, 11, 12, 13, 14, 15, 16, 17, 18, 19);
    }

    @Test
    void copiesARangeThatSpansChunks() {
        assertThat(chunked(10).copy(3, 9)).containsExactly(13, 14, 15, 16, 17, 18);
        assertThat(chunked(10).copy(5, 5)).isEmpty();
        assertThatThrownBy(() -> chunked(10).copy(4, 11)).isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void aChainOfOneArrayReadsThatArray() {
        long[] keys = {5, 6, 7};
        assertThat(KeyChain.of(keys).toArray()).containsExactly(5, 6, 7);
        assertThat(KeyChain.of(new long[0]).length()).isZero();
    }

    @Test
    void twoChainsShareTheKeysBeforeTheirFirstDifferenceWhateverTheirChunking() {
        KeyChain a = chunked(10);
        long[] b = a.toArray();
        b[6] = 99;
        b[7] = 98; // a chain differs from its first difference on
        b[8] = 97;
        b[9] = 96;
        assertThat(KeyChain.commonPrefix(a, KeyChain.of(b))).isEqualTo(6);
        assertThat(KeyChain.commonPrefix(a, KeyChain.of(Arrays.copyOf(a.toArray(), 7)))).isEqualTo(7);
        assertThat(KeyChain.commonPrefix(a, a)).isEqualTo(10);
        assertThat(KeyChain.commonPrefix(a, KeyChain.of(new long[] {1}))).isZero();
    }
}
