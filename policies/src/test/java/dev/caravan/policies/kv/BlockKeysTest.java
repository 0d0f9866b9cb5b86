package dev.caravan.policies.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

/** Block keys against vectors derived with Python's xxhash (src/test/python/derive_block_key_vectors.py). */
class BlockKeysTest {

    private record Vector(String name, String lora, String salt, int blockSize, int[] tokens, long root, long[] keys) {
    }

    private static List<Vector> vectors() throws IOException {
        List<Vector> out = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(
                BlockKeysTest.class.getResourceAsStream("/vectors/block-keys.txt"), StandardCharsets.UTF_8))) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                String[] f = line.split("\\|", -1);
                out.add(new Vector(f[0], f[1].equals("-") ? null : f[1], f[2].equals("-") ? null : f[2],
                        Integer.parseInt(f[3]), Arrays.stream(f[4].split(",")).mapToInt(Integer::parseInt).toArray(),
                        Long.parseUnsignedLong(f[5]),
                        Arrays.stream(f[6].split(",")).mapToLong(Long::parseUnsignedLong).toArray()));
            }
        }
        return out;
    }

    @Test
    void equalsTheVectorsDerivedInPython() throws IOException {
        List<Vector> vectors = vectors();
        assertThat(vectors).hasSize(8);
        for (Vector v : vectors) {
            long root = BlockKeys.root(v.lora(), v.salt());
            assertThat(root).as(v.name() + " root").isEqualTo(v.root());
            assertThat(BlockKeys.keys(v.tokens(), v.blockSize(), root)).as(v.name()).containsExactly(v.keys());
        }
    }

    @Test
    void chainsEachBlockFromThePreviousKey() {
        int[] tokens = {1, 2, 3, 4, 5, 6, 7, 8};
        long[] keys = BlockKeys.keys(tokens, 4, BlockKeys.PLAIN_ROOT);
        long second = BlockKeys.next(keys[0], tokens, 4, 4, null, null);

        assertThat(keys).hasSize(2);
        assertThat(keys[1]).isEqualTo(second);
        assertThat(BlockKeys.next(BlockKeys.PLAIN_ROOT, tokens, 4, 4, null, null)).isNotEqualTo(second);
    }

    @Test
    void aBlockWithExtraKeysGetsAKeyNoPlainChainProduces() {
        int[] tokens = {1, 2, 3, 4};
        long plain = BlockKeys.next(BlockKeys.PLAIN_ROOT, tokens, 0, 4, null, null);
        long withImage = BlockKeys.next(BlockKeys.PLAIN_ROOT, tokens, 0, 4, "[\"img-1\",0]".getBytes(), null);

        assertThat(withImage).isNotEqualTo(plain);
    }

    @Test
    void loraAndSaltEachChangeTheRoot() {
        assertThat(BlockKeys.root(null, null)).isEqualTo(BlockKeys.PLAIN_ROOT);
        assertThat(BlockKeys.root("a", null)).isNotEqualTo(BlockKeys.PLAIN_ROOT)
                .isNotEqualTo(BlockKeys.root(null, "a"))
                .isNotEqualTo(BlockKeys.root("a", "a"));
        assertThat(BlockKeys.root("", null)).isNotEqualTo(BlockKeys.PLAIN_ROOT);
    }

    @Test
    void rejectsABlockSizeBelowOne() {
        assertThatThrownBy(() -> BlockKeys.keys(new int[4], 0, 0)).hasMessage("blockSize must be >= 1, was 0");
    }
}
