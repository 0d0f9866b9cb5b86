package dev.caravan.policies.kv;

/**
 * XXH3-64 (seed 0, the default secret) of one block's byte layout, {@code parent (8 bytes LE) || token ids (4 bytes LE
 * each)}, read from the parent and the int array where the tokens lie: no buffer is filled and no general-purpose
 * hash function is entered. The inputs of blocks up to {@value #MAX_TOKENS} tokens (12 to 240 bytes) take XXH3's
 * short-input paths (9–16, 17–128 and 129–240 bytes), a few multiplications per 16 bytes; the results equal
 * {@code LongHashFunction.xx3().hashBytes} of the same bytes ({@code BlockHashTest} compares every length). Larger
 * blocks are left to the caller. Stateless and thread-safe.
 *
 * <p>The algorithm is xxHash's XXH3 (Yann Collet, https://github.com/Cyan4973/xxHash, {@code xxhash.h}:
 * {@code XXH3_len_9to16_64b}, {@code XXH3_len_17to128_64b}, {@code XXH3_len_129to240_64b}).
 */
final class BlockHash {

    /** Most tokens a block may hold for {@link #hash}: 8 + 4 × 58 = 240 bytes, XXH3's mid-size bound. */
    static final int MAX_TOKENS = 58;

    private static final long PRIME64_1 = 0x9E3779B185EBCA87L;
    private static final long PRIME_MX1 = 0x165667919E3779F9L;
    /** XXH3's default secret, the first 136 bytes (all the short paths read), as little-endian longs by offset. */
    private static final byte[] SECRET = {
        (byte) 0xb8, (byte) 0xfe, 0x6c, 0x39, 0x23, (byte) 0xa4, 0x4b, (byte) 0xbe,
        0x7c, 0x01, (byte) 0x81, 0x2c, (byte) 0xf7, 0x21, (byte) 0xad, 0x1c,
        (byte) 0xde, (byte) 0xd4, 0x6d, (byte) 0xe9, (byte) 0x83, (byte) 0x90, (byte) 0x97, (byte) 0xdb,
        0x72, 0x40, (byte) 0xa4, (byte) 0xa4, (byte) 0xb7, (byte) 0xb3, 0x67, 0x1f,
        (byte) 0xcb, 0x79, (byte) 0xe6, 0x4e, (byte) 0xcc, (byte) 0xc0, (byte) 0xe5, 0x78,
        (byte) 0x82, 0x5a, (byte) 0xd0, 0x7d, (byte) 0xcc, (byte) 0xff, 0x72, 0x21,
        (byte) 0xb8, 0x08, 0x46, 0x74, (byte) 0xf7, 0x43, 0x24, (byte) 0x8e,
        (byte) 0xe0, 0x35, (byte) 0x90, (byte) 0xe6, (byte) 0x81, 0x3a, 0x26, 0x4c,
        0x3c, 0x28, 0x52, (byte) 0xbb, (byte) 0x91, (byte) 0xc3, 0x00, (byte) 0xcb,
        (byte) 0x88, (byte) 0xd0, 0x65, (byte) 0x8b, 0x1b, 0x53, 0x2e, (byte) 0xa3,
        0x71, 0x64, 0x48, (byte) 0x97, (byte) 0xa2, 0x0d, (byte) 0xf9, 0x4e,
        0x38, 0x19, (byte) 0xef, 0x46, (byte) 0xa9, (byte) 0xde, (byte) 0xac, (byte) 0xd8,
        (byte) 0xa8, (byte) 0xfa, 0x76, 0x3f, (byte) 0xe3, (byte) 0x9c, 0x34, 0x3f,
        (byte) 0xf9, (byte) 0xdc, (byte) 0xbb, (byte) 0xc7, (byte) 0xc7, 0x0b, 0x4f, 0x1d,
        (byte) 0x8a, 0x51, (byte) 0xe0, 0x4b, (byte) 0xcd, (byte) 0xb4, 0x59, 0x31,
        (byte) 0xc8, (byte) 0x9f, 0x7e, (byte) 0xc9, (byte) 0xd9, 0x78, 0x73, 0x64,
        (byte) 0xea, (byte) 0xc5, (byte) 0xac, (byte) 0x83, 0x34, (byte) 0xd3, (byte) 0xeb, (byte) 0xc3,
    };
    /** {@code S[o]} = the secret's little-endian long at byte offset {@code o}. */
    private static final long[] S = new long[SECRET.length - 7];

    static {
        for (int o = 0; o < S.length; o++) {
            long v = 0;
            for (int i = 7; i >= 0; i--) {
                v = (v << 8) | (SECRET[o + i] & 0xFF);
            }
            S[o] = v;
        }
    }

    private BlockHash() {
    }

    /**
     * XXH3-64 of {@code parent} (8 bytes LE) followed by {@code tokens[from, from + count)} (4 bytes LE each).
     *
     * @param count 1 to {@value #MAX_TOKENS}
     */
    static long hash(long parent, int[] tokens, int from, int count) {
        int len = 8 + 4 * count;
        if (len <= 16) {
            long lo = parent ^ (S[24] ^ S[32]);
            long hi = word(parent, tokens, from, (len - 8) >>> 2) ^ (S[40] ^ S[48]);
            long acc = len + Long.reverseBytes(lo) + hi + fold(lo, hi);
            return avalanche(acc);
        }
        if (len <= 128) {
            long acc = len * PRIME64_1;
            int end = len >>> 2; // in ints
            if (len > 32) {
                if (len > 64) {
                    if (len > 96) {
                        acc += mix(parent, tokens, from, 12, 96);
                        acc += mix(parent, tokens, from, end - 16, 112);
                    }
                    acc += mix(parent, tokens, from, 8, 64);
                    acc += mix(parent, tokens, from, end - 12, 80);
                }
                acc += mix(parent, tokens, from, 4, 32);
                acc += mix(parent, tokens, from, end - 8, 48);
            }
            acc += mix(parent, tokens, from, 0, 0);
            acc += mix(parent, tokens, from, end - 4, 16);
            return avalanche(acc);
        }
        long acc = len * PRIME64_1;
        int rounds = len >>> 4;
        for (int i = 0; i < 8; i++) {
            acc += mix(parent, tokens, from, 4 * i, 16 * i);
        }
        acc = avalanche(acc);
        for (int i = 8; i < rounds; i++) {
            acc += mix(parent, tokens, from, 4 * i, 16 * (i - 8) + 3);
        }
        acc += mix(parent, tokens, from, (len >>> 2) - 4, 136 - 17);
        return avalanche(acc);
    }

    /** XXH3's 16-byte mix of the input at int {@code at} with the secret at byte {@code secret}. */
    private static long mix(long parent, int[] tokens, int from, int at, int secret) {
        return fold(word(parent, tokens, from, at) ^ S[secret], word(parent, tokens, from, at + 2) ^ S[secret + 8]);
    }

    /** The little-endian long at int {@code i} of {@code parent || tokens[from..]}. */
    private static long word(long parent, int[] tokens, int from, int i) {
        if (i >= 2) {
            return (tokens[from + i - 2] & 0xFFFFFFFFL) | ((long) tokens[from + i - 1] << 32);
        }
        return i == 0 ? parent : (parent >>> 32) | ((long) tokens[from] << 32);
    }

    /** The 128-bit product's low half XOR its high half. */
    private static long fold(long a, long b) {
        long high = Math.multiplyHigh(a, b) + ((a >> 63) & b) + ((b >> 63) & a);
        return (a * b) ^ high;
    }

    /** {@code XXH3_avalanche}. */
    private static long avalanche(long h) {
        h ^= h >>> 37;
        h *= PRIME_MX1;
        return h ^ (h >>> 32);
    }
}
