package dev.caravan.policies.kv;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.SplittableRandom;

import net.openhft.hashing.LongHashFunction;
import org.junit.jupiter.api.Test;

class BlockHashTest {

    private static final LongHashFunction XXH3 = LongHashFunction.xx3();

    /** The block's bytes as the library would hash them: parent LE, then each token LE. */
    private static long reference(long parent, int[] tokens, int from, int count) {
        byte[] buf = new byte[8 + 4 * count];
        for (int i = 0; i < 8; i++) {
            buf[i] = (byte) (parent >>> (8 * i));
        }
        for (int t = 0; t < count; t++) {
            for (int i = 0; i < 4; i++) {
                buf[8 + 4 * t + i] = (byte) (tokens[from + t] >>> (8 * i));
            }
        }
        return XXH3.hashBytes(buf);
    }

    @Test
    void equalsXxh3OfTheBlockBytesForEveryBlockSizeItTakes() {
        SplittableRandom random = new SplittableRandom(7);
        for (int count = 1; count <= BlockHash.MAX_TOKENS; count++) {
            for (int trial = 0; trial < 200; trial++) {
                int[] tokens = new int[count + 5];
                for (int i = 0; i < tokens.length; i++) {
                    tokens[i] = trial % 3 == 0 ? random.nextInt() : random.nextInt(200_000);
                }
                long parent = random.nextLong();
                int from = trial % 5;
                assertEquals(reference(parent, tokens, from, count), BlockHash.hash(parent, tokens, from, count),
                        "count " + count + " trial " + trial);
            }
        }
    }

    @Test
    void equalsXxh3AtTheEdgesOfTheSignedRange() {
        long[] parents = {0, -1, Long.MIN_VALUE, Long.MAX_VALUE, 1};
        int[] tokens = {Integer.MIN_VALUE, -1, 0, Integer.MAX_VALUE, 1, -2, 3, Integer.MIN_VALUE};
        for (long parent : parents) {
            for (int count = 1; count <= tokens.length; count++) {
                assertEquals(reference(parent, tokens, 0, count), BlockHash.hash(parent, tokens, 0, count));
            }
        }
    }
}
