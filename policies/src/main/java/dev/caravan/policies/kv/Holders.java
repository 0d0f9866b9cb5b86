package dev.caravan.policies.kv;

import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The holders of one block key: which index slots (a slot is one engine rank, {@link KvBlockIndex}) hold it on which
 * tier. A {@code long[]} of {@code tiers × words} bits, tier-major ({@code bits[tier * words + slot / 64]}); arrays are
 * immutable once published, every change returns a new one. Arrays with a single bit set are shared
 * ({@link #canonical}): most blocks live on one engine, and their entries then cost no array of their own.
 */
final class Holders {

    static final int TIERS = KvTier.values().length;
    private static final int CACHED_SLOTS = 256;
    private static final AtomicReferenceArray<long[]> SINGLES = new AtomicReferenceArray<>(TIERS * CACHED_SLOTS);

    private Holders() {
    }

    static int words(long[] bits) {
        return bits.length / TIERS;
    }

    /** A copy of {@code bits} (null = none) with {@code slot} set on {@code tier}. */
    static long[] with(long[] bits, int tier, int slot) {
        int word = slot >>> 6;
        if (bits == null) {
            return single(tier, slot);
        }
        int words = words(bits);
        if (word < words && (bits[tier * words + word] & (1L << slot)) != 0) {
            return bits;
        }
        int outWords = Math.max(words, word + 1);
        long[] out = new long[TIERS * outWords];
        for (int t = 0; t < TIERS; t++) {
            System.arraycopy(bits, t * words, out, t * outWords, words);
        }
        out[tier * outWords + word] |= 1L << slot;
        return out;
    }

    /** A copy without {@code slot} on {@code tier}; null when no bit is left. */
    static long[] without(long[] bits, int tier, int slot) {
        int word = slot >>> 6;
        int words = words(bits);
        if (word >= words || (bits[tier * words + word] & (1L << slot)) == 0) {
            return bits;
        }
        long[] out = bits.clone();
        out[tier * words + word] &= ~(1L << slot);
        return canonical(out);
    }

    /** True when {@code slot} holds the key on {@code tier}. */
    static boolean has(long[] bits, int tier, int slot) {
        int word = slot >>> 6;
        int words = words(bits);
        return word < words && (bits[tier * words + word] & (1L << slot)) != 0;
    }

    /** The shared array when exactly one bit is set, null when none is, else {@code bits}. */
    static long[] canonical(long[] bits) {
        int set = 0;
        int tier = -1;
        int slot = -1;
        int words = words(bits);
        for (int i = 0; i < bits.length && set < 2; i++) {
            int c = Long.bitCount(bits[i]);
            if (c > 0) {
                set += c;
                tier = i / words;
                slot = (i % words) * 64 + Long.numberOfTrailingZeros(bits[i]);
            }
        }
        if (set == 0) {
            return null;
        }
        return set == 1 && slot < CACHED_SLOTS ? single(tier, slot) : bits;
    }

    private static long[] single(int tier, int slot) {
        int words = (slot >>> 6) + 1;
        if (slot >= CACHED_SLOTS) {
            long[] out = new long[TIERS * words];
            out[tier * words + (slot >>> 6)] = 1L << slot;
            return out;
        }
        int i = tier * CACHED_SLOTS + slot;
        long[] cached = SINGLES.get(i);
        if (cached == null) {
            cached = new long[TIERS * words];
            cached[tier * words + (slot >>> 6)] = 1L << slot;
            SINGLES.compareAndSet(i, null, cached);
            cached = SINGLES.get(i);
        }
        return cached;
    }
}
