package dev.caravan.sim.text;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The simulator's own fast tokenizer, its default when no {@code --tokenizer} is given (load tests that need no real
 * tokens). Algorithm: the text is cut into consecutive chunks of {@code charsPerToken} Unicode code points (the last
 * may be shorter); each chunk's id is the 32-bit FNV-1a hash of its UTF-8 bytes, unsigned, modulo
 * {@value #VOCAB_SIZE} (Llama 3's vocabulary size). A text that extends another extends its ids (except for the
 * other's last partial chunk), which is the property prefix caching needs; 4 code points per token lands near a real
 * BPE tokenizer's counts on English text. It has no special tokens. The gateway documents the same scheme as its
 * {@code pseudo} tokenizer, so the two agree on ids without sharing code (docs/simulator.md).
 *
 * <p>{@link #decode} knows the chunks this instance encoded or registered (the simulator's output lexicon).
 */
public final class SyntheticTokenizer implements EngineTokenizer {

    /** Default code points per token. */
    public static final int DEFAULT_CHARS_PER_TOKEN = 4;
    /** Vocabulary size. */
    public static final int VOCAB_SIZE = 128_256;

    private static final int FNV_OFFSET = 0x811c9dc5;
    private static final int FNV_PRIME = 0x01000193;

    private final int charsPerToken;
    private final Map<Integer, String> known = new ConcurrentHashMap<>();

    public SyntheticTokenizer(int charsPerToken) {
        if (charsPerToken < 1 || charsPerToken > 64) {
            throw new IllegalArgumentException("charsPerToken must be in [1,64], was " + charsPerToken);
        }
        this.charsPerToken = charsPerToken;
    }

    public int charsPerToken() {
        return charsPerToken;
    }

    @Override
    public int[] encode(String text, boolean addSpecialTokens) {
        if (text == null || text.isEmpty()) {
            return new int[0];
        }
        int[] out = new int[(text.codePointCount(0, text.length()) + charsPerToken - 1) / charsPerToken];
        int pos = 0;
        for (int t = 0; t < out.length; t++) {
            int end = pos;
            for (int c = 0; c < charsPerToken && end < text.length(); c++) {
                end += Character.charCount(text.codePointAt(end));
            }
            out[t] = id(text.substring(pos, end));
            pos = end;
        }
        return out;
    }

    /** The id of one chunk, remembered for {@link #decode}. */
    public int register(String chunk) {
        int id = id(chunk);
        known.putIfAbsent(id, chunk);
        return id;
    }

    @Override
    public String decode(int tokenId) {
        return known.getOrDefault(tokenId, "");
    }

    static int id(String chunk) {
        int h = FNV_OFFSET;
        for (byte b : chunk.getBytes(StandardCharsets.UTF_8)) {
            h ^= (b & 0xff);
            h *= FNV_PRIME;
        }
        return (int) (Integer.toUnsignedLong(h) % VOCAB_SIZE);
    }

    @Override
    public String name() {
        return "synthetic-" + charsPerToken;
    }
}
