package dev.caravan.policies.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

import com.google.common.hash.Hashing;

/** Checked against the SipHash paper's test vector and against Guava's independent implementation. */
class SipHashTest {

    private static final byte[] KEY = new byte[16];

    static {
        for (int i = 0; i < 16; i++) {
            KEY[i] = (byte) i;
        }
    }

    @Test
    void matchesThePapersTestVector() {
        byte[] message = new byte[15];
        for (int i = 0; i < 15; i++) {
            message[i] = (byte) i;
        }
        // Aumasson and Bernstein, "SipHash: a fast short-input PRF", appendix A
        assertThat(new SipHash(KEY).hash(message)).isEqualTo(0xa129ca6149be45e5L);
    }

    @Test
    void agreesWithGuavaOnRandomInputs() {
        SplittableRandom r = new SplittableRandom(7);
        for (int n = 0; n < 200; n++) {
            byte[] key = new byte[16];
            byte[] message = new byte[r.nextInt(40)];
            r.nextBytes(key);
            r.nextBytes(message);
            SipHash mine = new SipHash(key);
            long k0 = java.nio.ByteBuffer.wrap(key, 0, 8).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong();
            long k1 = java.nio.ByteBuffer.wrap(key, 8, 8).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong();
            assertThat(mine.hash(message)).isEqualTo(Hashing.sipHash24(k0, k1).hashBytes(message).asLong());
            long a = r.nextLong();
            long b = r.nextLong();
            byte[] both = java.nio.ByteBuffer.allocate(16).order(java.nio.ByteOrder.LITTLE_ENDIAN).putLong(a).putLong(b)
                    .array();
            assertThat(mine.hash(a, b)).isEqualTo(Hashing.sipHash24(k0, k1).hashBytes(both).asLong());
        }
    }
}
