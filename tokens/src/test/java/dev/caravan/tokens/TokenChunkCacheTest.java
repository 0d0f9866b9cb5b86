package dev.caravan.tokens;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class TokenChunkCacheTest {

    static final int[] IDS = {1, 2, 3};
    /** One entry of a 10-character text and 3 ids. */
    static final long ENTRY = TokenChunkCache.ENTRY_OVERHEAD + 2 * 10 + 4 * 3;

    @Test
    void returnsTheIdsKeptForTheSameTokenizerAndTextOnly() {
        TokenChunkCache cache = new TokenChunkCache(1 << 20);
        int a = cache.register();
        int b = cache.register();
        cache.put(a, "0123456789", IDS);
        assertThat(cache.get(a, "0123456789")).containsExactly(1, 2, 3);
        assertThat(cache.get(b, "0123456789")).isNull();
        assertThat(cache.get(a, "012345678")).isNull();
        assertThat(cache.hits()).isEqualTo(1);
        assertThat(cache.misses()).isEqualTo(2);
        assertThat(cache.hitTokens()).isEqualTo(3);
        assertThat(cache.missTokens()).isEqualTo(3);
        assertThat(cache.bytes()).isEqualTo(ENTRY);
    }

    @Test
    void evictsTheLeastRecentlyUsedWhenTheBytesExceedTheBound() {
        TokenChunkCache cache = new TokenChunkCache(3 * ENTRY);
        cache.put(0, "aaaaaaaaaa", IDS);
        cache.put(0, "bbbbbbbbbb", IDS);
        cache.put(0, "cccccccccc", IDS);
        cache.get(0, "aaaaaaaaaa");
        cache.put(0, "dddddddddd", IDS);
        assertThat(cache.get(0, "bbbbbbbbbb")).isNull();
        assertThat(cache.get(0, "aaaaaaaaaa")).isNotNull();
        assertThat(cache.get(0, "cccccccccc")).isNotNull();
        assertThat(cache.get(0, "dddddddddd")).isNotNull();
        assertThat(cache.size()).isEqualTo(3);
        assertThat(cache.bytes()).isEqualTo(3 * ENTRY);
        assertThat(cache.evictions()).isEqualTo(1);
    }

    @Test
    void keepsNothingLargerThanItsBoundAndNothingAtZero() {
        TokenChunkCache small = new TokenChunkCache(ENTRY - 1);
        small.put(0, "aaaaaaaaaa", IDS);
        assertThat(small.size()).isZero();
        assertThat(small.evictions()).isZero();
        TokenChunkCache off = new TokenChunkCache(0);
        off.put(0, "", new int[0]);
        assertThat(off.get(0, "")).isNull();
        assertThat(off.bytes()).isZero();
    }

    @Test
    void refusesANegativeBound() {
        assertThatThrownBy(() -> new TokenChunkCache(-1)).hasMessageContaining("--tokens-cache-bytes");
    }

    @Test
    void chunkedEncoderTakesAddedTokensAsTheirIdsAndSeenChunksFromTheCache() throws Exception {
        TokenChunker chunker = TokenChunker.of(new com.fasterxml.jackson.databind.ObjectMapper().readTree("""
                {"model": {"type": "BPE"}, "normalizer": null,
                 "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": false},
                 "added_tokens": [{"id": 7, "content": "<x>", "normalized": false, "lstrip": false, "rstrip": false,
                                   "single_word": false}]}"""));
        java.util.List<String> encoded = new java.util.ArrayList<>();
        java.util.function.Function<String, int[]> lengths = t -> {
            encoded.add(t);
            return new int[] {t.length()};
        };
        ChunkedEncoder on = new ChunkedEncoder(chunker, new TokenChunkCache(1 << 20), lengths);
        assertThat(on.encode("ab<x>cde")).containsExactly(2, 7, 3);
        assertThat(on.encode("ab<x>cde<x>")).containsExactly(2, 7, 3, 7);
        assertThat(encoded).containsExactly("ab", "cde");
        encoded.clear();
        ChunkedEncoder off = new ChunkedEncoder(chunker, new TokenChunkCache(0), lengths);
        assertThat(off.encode("ab<x>cde")).containsExactly(8);
        assertThat(encoded).containsExactly("ab<x>cde");
    }

}
