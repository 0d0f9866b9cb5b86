package dev.caravan.bench.workload;

import java.util.SplittableRandom;

/**
 * Deterministic English-like ASCII text of an exact length, a pure function of a seed: the same seed always gives the
 * same characters, so equal seeds mean equal prompts (and equal prefix-cache blocks) in every run and every engine.
 *
 * <p>Text is ASCII only, so with the pseudo-tokenizer (4 code points per token) a run of {@code 4 × n} characters is
 * exactly {@code n} tokens, and a 16-token KV block is exactly 64 characters. Words come from a small lexicon and are
 * separated by single spaces; the last word is cut to hit the length exactly.
 */
public final class TextSource {

    private static final String[] WORDS = ("the of and to in is that for it as with was on be by at this are from or "
            + "an have not which but all they one you were her can there been has more will if its when who so no "
            + "would what about out up into them some than may only other could any time these two first after "
            + "policy account invoice ticket customer service request order product support schema tool query "
            + "answer context report region latency budget storage cluster replica prompt cache token router")
            .split(" ");

    private TextSource() {
    }

    /** {@code chars} characters of text seeded by {@code seed}. */
    public static String text(long seed, int chars) {
        StringBuilder sb = new StringBuilder(chars);
        append(sb, seed, chars);
        return sb.toString();
    }

    /** Appends exactly {@code chars} characters of text seeded by {@code seed}. */
    public static void append(StringBuilder sb, long seed, int chars) {
        if (chars < 0) {
            throw new IllegalArgumentException("chars must be >= 0, was " + chars);
        }
        SplittableRandom random = new SplittableRandom(mix(seed));
        int end = sb.length() + chars;
        while (sb.length() < end) {
            String w = WORDS[random.nextInt(WORDS.length)];
            int room = end - sb.length();
            if (w.length() + 1 <= room) {
                sb.append(w).append(' ');
            } else {
                sb.append(w, 0, Math.min(w.length(), room));
                while (sb.length() < end) {
                    sb.append('.');
                }
            }
        }
    }

    /** Seed of the {@code index}-th item of a family seeded by {@code seed} (tenants, documents, blocks). */
    public static long seedOf(long seed, String family, long index) {
        return mix(seed * 31 + family.hashCode()) ^ mix(index + 0x9E3779B97F4A7C15L);
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
