package dev.caravan.sim.engine;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import dev.caravan.sim.text.EngineTokenizer;
import dev.caravan.sim.text.SyntheticTokenizer;

/**
 * Produces the simulated output: token ids, their text, and logprobs, all deterministic.
 *
 * <p>Output tokens are drawn from a small lexicon of words. With the synthetic tokenizer each word is a space and a
 * three-letter word, padded or cut to exactly {@code charsPerToken} characters, so re-tokenizing an output text gives
 * the same ids; with a real tokenizer each word is the first token the tokenizer makes of it, and its text is that
 * token decoded. The stream of a request is seeded from the engine seed
 * and the prompt, so the same prompt gives the same answer on every engine started with the same seed. Logprobs are a
 * pure function of (token id, position): a prefill engine and a regular engine report identical input logprobs for the
 * same prompt, which makes a router's logprob splice checkable.
 */
public final class OutputGenerator {

    private static final String[] WORDS = {
        "the", "and", "map", "sun", "sea", "day", "way", "far", "oil", "tea", "ink", "art", "fig", "jar", "key", "kit",
        "log", "net", "oak", "owl", "ram", "rye", "sky", "tin", "van", "web", "yak", "zen", "ice", "gem", "fox", "elm"
    };

    private final long seed;
    private final int[] ids;
    private final Map<Integer, String> textById = new HashMap<>();

    public OutputGenerator(long seed, EngineTokenizer tokenizer) {
        this.seed = seed;
        List<Integer> ids = new ArrayList<>();
        for (String word : WORDS) {
            String text;
            int id;
            if (tokenizer instanceof SyntheticTokenizer synthetic) {
                int cpt = synthetic.charsPerToken();
                String w = " " + word;
                StringBuilder sb = new StringBuilder(w.length() > cpt ? w.substring(0, cpt) : w);
                while (sb.length() < cpt) {
                    sb.append(' ');
                }
                text = sb.toString();
                id = synthetic.register(text);
            } else {
                int[] encoded = tokenizer.encode(" " + word, false);
                if (encoded.length == 0) {
                    continue;
                }
                id = encoded[0];
                text = tokenizer.decode(id);
            }
            if (!text.isEmpty() && textById.putIfAbsent(id, text) == null) {
                ids.add(id);
            }
        }
        if (ids.isEmpty()) {
            throw new IllegalArgumentException("tokenizer " + tokenizer.name() + " decodes none of the output words");
        }
        this.ids = ids.stream().mapToInt(Integer::intValue).toArray();
    }

    /** A fresh output stream for one request. */
    public SplittableRandom streamFor(int[] prompt, int index) {
        long h = seed * 0x9E3779B97F4A7C15L + index;
        for (int t : prompt) {
            h = (h ^ t) * 0x100000001B3L;
        }
        return new SplittableRandom(h);
    }

    /** The next output token id of a stream. */
    public int nextToken(SplittableRandom stream) {
        return ids[stream.nextInt(ids.length)];
    }

    /** Text of an output token id (ids not produced here render as an empty string). */
    public String text(int tokenId) {
        return textById.getOrDefault(tokenId, "");
    }

    /** Deterministic log-probability in [-5, 0] of {@code tokenId} at {@code position}. */
    public static double logprob(int tokenId, int position) {
        long h = (tokenId * 0x9E3779B97F4A7C15L) ^ (position * 0xC2B2AE3D27D4EB4FL);
        h ^= h >>> 31;
        return -Math.floorMod(h, 5000L) / 1000.0;
    }
}
