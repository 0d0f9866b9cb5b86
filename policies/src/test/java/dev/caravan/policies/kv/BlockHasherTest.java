package dev.caravan.policies.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HexFormat;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

/** Test vectors from shared/reference/kv-events.md §3.1 (sha256_cbor, PYTHONHASHSEED "0", block size 16). */
class BlockHasherTest {

    private final BlockHasher hasher = new BlockHasher(16, "0");

    @Test
    void rootHashIsSha256OfTheCborEncodedSeed() {
        assertThat(HexFormat.of().formatHex(hasher.noneHash()))
                .isEqualTo("4e1195df020de59e0d65a33a4279f1183e7ae4e5d980e309f8b55adff2e61c3e");
    }

    @Test
    void firstTwoBlocksMatchVllmEventIds() {
        int[] tokens = IntStream.rangeClosed(1, 32).toArray();
        assertThat(hasher.hashes(tokens)).containsExactly(3236607068019569386L, 2758186210834249151L);
    }

    @Test
    void trailingPartialBlockHasNoHash() {
        assertThat(hasher.hashes(IntStream.rangeClosed(1, 31).toArray())).hasSize(1);
        assertThat(hasher.hashes(new int[15])).isEmpty();
    }

    @Test
    void hashChainsThroughTheParent() {
        int[] a = IntStream.rangeClosed(1, 32).toArray();
        int[] b = a.clone();
        b[0] = 99;
        assertThat(hasher.hashes(b)[1]).isNotEqualTo(hasher.hashes(a)[1]);
    }

    @Test
    void externalIdIsTheLastEightBytesBigEndian() {
        byte[] digest = new byte[32];
        digest[24] = (byte) 0x8a;
        digest[31] = 0x01;
        assertThat(BlockHasher.external(digest)).isEqualTo(0x8a00000000000001L);
    }

    @Test
    void rejectsBlockSizeOutOfRange() {
        assertThatThrownBy(() -> new BlockHasher(0, "0")).hasMessage("blockSize must be in [1,4096], was 0");
    }
}
