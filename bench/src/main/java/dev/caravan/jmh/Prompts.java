package dev.caravan.jmh;

import java.util.SplittableRandom;

/**
 * Deterministic synthetic prompts shaped like the b2b scenario: many customers (tenants), each
 * with its own long system prompt (persona, tool schemas, retrieval preamble) behind a short preamble every customer
 * shares, followed by short user turns. Text is English-like: words of 2 to 10 lower-case letters from a fixed
 * vocabulary, so edges split at realistic places rather than at random bytes.
 */
final class Prompts {

    private static final String SHARED_PREAMBLE = "You are a helpful assistant deployed by Acme Corp. Follow the "
            + "customer policy below, answer concisely, and call tools only when needed.\n";
    private static final String[] VOCABULARY = vocabulary(4096, 7);

    private Prompts() {
    }

    private static String[] vocabulary(int n, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        String[] words = new String[n];
        for (int i = 0; i < n; i++) {
            int len = 2 + r.nextInt(9);
            StringBuilder sb = new StringBuilder(len);
            for (int j = 0; j < len; j++) {
                sb.append((char) ('a' + r.nextInt(26)));
            }
            words[i] = sb.toString();
        }
        return words;
    }

    /** Words from the vocabulary until {@code chars} characters, seeded. */
    static String words(long seed, int chars) {
        SplittableRandom r = new SplittableRandom(seed);
        StringBuilder sb = new StringBuilder(chars + 12);
        while (sb.length() < chars) {
            sb.append(VOCABULARY[r.nextInt(VOCABULARY.length)]).append(' ');
        }
        sb.setLength(chars);
        return sb.toString();
    }

    /** Tenant {@code t}'s system prompt: the shared preamble, then tenant-specific text, {@code chars} in total. */
    static String systemPrompt(int tenant, int chars) {
        String tail = words(1_000_003L * tenant + 17, Math.max(0, chars - SHARED_PREAMBLE.length()));
        return (SHARED_PREAMBLE + "Customer " + tenant + ": " + tail).substring(0, chars);
    }

    /** A user turn of about 100 to 300 characters, seeded by tenant and turn number. */
    static String userTurn(int tenant, int turn) {
        long seed = 31L * tenant + 7919L * turn + 3;
        return "\nUser: " + words(seed, 100 + new SplittableRandom(seed).nextInt(200));
    }
}
