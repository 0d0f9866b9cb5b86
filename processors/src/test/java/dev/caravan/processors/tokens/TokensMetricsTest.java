package dev.caravan.processors.tokens;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import dev.caravan.tokens.TokenChunkCache;

class TokensMetricsTest {

    private static final int[] IDS = {1, 2, 3};
    /** One entry of a 10-character chunk and three ids. */
    private static final long ENTRY = TokenChunkCache.ENTRY_OVERHEAD + 2 * 10 + 4 * 3;

    @Test
    void metricsReadTheCachesHitsMissesEvictionsAndBytes() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        TokenChunkCache cache = new TokenChunkCache(ENTRY);
        new TokensMetrics(registry).bind(cache);
        cache.get(0, "aaaaaaaaaa");
        cache.put(0, "aaaaaaaaaa", IDS);
        cache.get(0, "aaaaaaaaaa");
        cache.get(0, "aaaaaaaaaa");
        cache.put(0, "bbbbbbbbbb", IDS);
        assertThat(registry.get("caravan_prompt_tokens_cache_chunks_total").tag("result", "hit").functionCounter()
                .count()).isEqualTo(2);
        assertThat(registry.get("caravan_prompt_tokens_cache_chunks_total").tag("result", "miss").functionCounter()
                .count()).isEqualTo(1);
        assertThat(registry.get("caravan_prompt_tokens_cache_tokens_total").tag("result", "hit").functionCounter()
                .count()).isEqualTo(6);
        assertThat(registry.get("caravan_prompt_tokens_cache_tokens_total").tag("result", "miss").functionCounter()
                .count()).isEqualTo(6);
        assertThat(registry.get("caravan_prompt_tokens_cache_evictions_total").functionCounter().count())
                .isEqualTo(1);
        assertThat(registry.get("caravan_prompt_tokens_cache_bytes").gauge().value()).isEqualTo(ENTRY);
    }
}
