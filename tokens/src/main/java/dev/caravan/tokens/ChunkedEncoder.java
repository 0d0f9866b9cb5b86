package dev.caravan.tokens;

import java.util.List;
import java.util.function.Function;

/**
 * Encodes a rendered chat prompt (without the tokenizer's special tokens, as the engines' chat path does) piece by
 * piece: the {@link TokenChunker}'s cuts, each added token as its id, each stretch of text from the
 * {@link TokenChunkCache} or, on a miss, encoded and kept. The result equals encoding the whole text (the cuts are
 * where that is proven; design/tokens.md), and a prompt whose system prompt or earlier turns were seen before costs
 * only its new text. With a cache of 0 bytes the text is encoded whole, as before. Thread-safe.
 */
public final class ChunkedEncoder {

    private final TokenChunker chunker;
    private final TokenChunkCache cache;
    private final Function<String, int[]> encode;
    private final int tokenizer;

    /**
     * @param encode the tokenizer's encoding of a text without special tokens
     */
    public ChunkedEncoder(TokenChunker chunker, TokenChunkCache cache, Function<String, int[]> encode) {
        this.chunker = chunker;
        this.cache = cache;
        this.encode = encode;
        this.tokenizer = cache.register();
    }

    /** The token ids of {@code text}, exactly as encoding it whole without special tokens. */
    public int[] encode(String text) {
        if (cache.capacityBytes() == 0) {
            return encode.apply(text);
        }
        List<TokenChunker.Piece> pieces = chunker.split(text);
        int[][] parts = new int[pieces.size()][];
        int total = 0;
        for (int i = 0; i < parts.length; i++) {
            TokenChunker.Piece p = pieces.get(i);
            if (p.isAdded()) {
                parts[i] = new int[] {p.addedId()};
            } else {
                int[] ids = cache.get(tokenizer, p.text());
                if (ids == null) {
                    ids = encode.apply(p.text());
                    cache.put(tokenizer, p.text(), ids);
                }
                parts[i] = ids;
            }
            total += parts[i].length;
        }
        int[] out = new int[total];
        int at = 0;
        for (int[] part : parts) {
            System.arraycopy(part, 0, out, at, part.length);
            at += part.length;
        }
        return out;
    }

    public TokenChunker chunker() {
        return chunker;
    }
}
