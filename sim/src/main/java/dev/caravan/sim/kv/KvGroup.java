package dev.caravan.sim.kv;

/**
 * The KV-cache group an event belongs to in a hybrid model (several layer types, one group each), as vLLM's
 * {@code BlockStored} reports it: {@code group_idx}, {@code kv_cache_spec_kind} and, for sliding-window groups,
 * {@code kv_cache_spec_sliding_window}. {@code BlockRemoved} carries only the index.
 *
 * @param index         {@code group_idx}: the group's position in the engine's KV-cache config, from 0
 * @param kind          {@code kv_cache_spec_kind}, e.g. {@code full_attention}, {@code sliding_window}, {@code mamba}
 * @param slidingWindow {@code kv_cache_spec_sliding_window} in tokens, or null when the group has none
 */
public record KvGroup(int index, String kind, Integer slidingWindow) {

    public KvGroup {
        if (index < 0) {
            throw new IllegalArgumentException("group index must be >= 0, was " + index);
        }
        if (kind == null || kind.isBlank()) {
            throw new IllegalArgumentException("group kind must be set, was '" + kind + "'");
        }
    }
}
