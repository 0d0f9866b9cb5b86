package dev.caravan.policies.fleet;

/**
 * SipHash-2-4 (Aumasson and Bernstein, 2012): a keyed pseudo-random function with a 128-bit key and a 64-bit output,
 * built for short inputs. The boundary hashes replicas exchange are SipHash of a 16-byte chain state: without the key
 * a hash says nothing about the text, and it costs tens of nanoseconds where an HMAC-SHA256 costs about a microsecond.
 * Immutable and thread-safe.
 */
final class SipHash {

    private final long k0;
    private final long k1;

    /** The key as two little-endian words of its first 16 bytes. */
    SipHash(byte[] key) {
        if (key.length < 16) {
            throw new IllegalArgumentException("SipHash needs a 16-byte key, was " + key.length);
        }
        this.k0 = littleEndian(key, 0, 8);
        this.k1 = littleEndian(key, 8, 8);
    }

    /** The hash of the 16 bytes {@code a} then {@code b}, each little-endian. */
    long hash(long a, long b) {
        long v0 = k0 ^ 0x736f6d6570736575L;
        long v1 = k1 ^ 0x646f72616e646f6dL;
        long v2 = k0 ^ 0x6c7967656e657261L;
        long v3 = k1 ^ 0x7465646279746573L;
        long[] v = {v0, v1, v2, v3};
        compress(v, a);
        compress(v, b);
        compress(v, 16L << 56);
        return finish(v);
    }

    /** The hash of any bytes. */
    long hash(byte[] m) {
        long[] v = {k0 ^ 0x736f6d6570736575L, k1 ^ 0x646f72616e646f6dL, k0 ^ 0x6c7967656e657261L,
                k1 ^ 0x7465646279746573L};
        int full = m.length & ~7;
        for (int i = 0; i < full; i += 8) {
            compress(v, littleEndian(m, i, 8));
        }
        compress(v, ((long) (m.length & 0xFF) << 56) | littleEndian(m, full, m.length - full));
        return finish(v);
    }

    private static void compress(long[] v, long m) {
        v[3] ^= m;
        round(v);
        round(v);
        v[0] ^= m;
    }

    private static long finish(long[] v) {
        v[2] ^= 0xFF;
        for (int i = 0; i < 4; i++) {
            round(v);
        }
        return v[0] ^ v[1] ^ v[2] ^ v[3];
    }

    private static void round(long[] v) {
        v[0] += v[1];
        v[1] = Long.rotateLeft(v[1], 13);
        v[1] ^= v[0];
        v[0] = Long.rotateLeft(v[0], 32);
        v[2] += v[3];
        v[3] = Long.rotateLeft(v[3], 16);
        v[3] ^= v[2];
        v[0] += v[3];
        v[3] = Long.rotateLeft(v[3], 21);
        v[3] ^= v[0];
        v[2] += v[1];
        v[1] = Long.rotateLeft(v[1], 17);
        v[1] ^= v[2];
        v[2] = Long.rotateLeft(v[2], 32);
    }

    private static long littleEndian(byte[] b, int from, int n) {
        long r = 0;
        for (int i = n - 1; i >= 0; i--) {
            r = (r << 8) | (b[from + i] & 0xFFL);
        }
        return r;
    }
}
