package dev.caravan.policies.text;

import java.nio.charset.StandardCharsets;

/**
 * Caravan's documented stand-in for a real tokenizer, used by the engine simulator and by the gateway when it routes to
 * simulated engines.
 *
 * <p>Algorithm: the text is cut into consecutive chunks of {@code charsPerToken} Unicode code points (the last chunk may
 * be shorter); each chunk becomes one token whose id is the 32-bit FNV-1a hash of the chunk's UTF-8 bytes, taken
 * unsigned modulo {@link #VOCAB_SIZE}. Same text gives the same tokens; a text that extends another extends its token
 * list (except for the other's last partial chunk), which is the property prefix caching needs. With the default of 4
 * characters per token, prompt lengths land near a real BPE tokenizer on English text.
 */
public final class PseudoTokenizer implements Tokenizer {

    /** Default code points per token. */
    public static final int DEFAULT_CHARS_PER_TOKEN = 4;
    /** Vocabulary size (Llama 3's), so ids look like real ones. */
    public static final int VOCAB_SIZE = 128_256;

    private static final int FNV_OFFSET = 0x811c9dc5;
    private static final int FNV_PRIME = 0x01000193;

    private final int charsPerToken;

    public PseudoTokenizer() {
        this(DEFAULT_CHARS_PER_TOKEN);
    }

    public PseudoTokenizer(int charsPerToken) {
        if (charsPerToken < 1 || charsPerToken > 64) {
            throw new IllegalArgumentException("charsPerToken must be in [1,64], was " + charsPerToken);
        }
        this.charsPerToken = charsPerToken;
    }

    public int charsPerToken() {
        return charsPerToken;
    }

    @Override
    public int[] encode(String text) {
        if (text == null || text.isEmpty()) {
            return new int[0];
        }
        int codePoints = text.codePointCount(0, text.length());
        int[] out = new int[(codePoints + charsPerToken - 1) / charsPerToken];
        int pos = 0;
        for (int t = 0; t < out.length; t++) {
            int end = pos;
            for (int c = 0; c < charsPerToken && end < text.length(); c++) {
                end += Character.charCount(text.codePointAt(end));
            }
            out[t] = tokenId(text.substring(pos, end));
            pos = end;
        }
        return out;
    }

    /** Number of tokens {@link #encode} would return, without allocating them. */
    public int count(String text) {
        if (text == null || text.isEmpty()) {
            return 0;
        }
        return (text.codePointCount(0, text.length()) + charsPerToken - 1) / charsPerToken;
    }

    static int tokenId(String chunk) {
        int h = FNV_OFFSET;
        for (byte b : chunk.getBytes(StandardCharsets.UTF_8)) {
            h ^= (b & 0xff);
            h *= FNV_PRIME;
        }
        return (int) (Integer.toUnsignedLong(h) % VOCAB_SIZE);
    }

    @Override
    public String name() {
        return "pseudo-" + charsPerToken;
    }
}
