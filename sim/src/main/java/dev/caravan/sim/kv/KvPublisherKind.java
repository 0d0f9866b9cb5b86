package dev.caravan.sim.kv;

import java.util.Locale;

/**
 * Whose KV-event publisher a simulated engine emulates. The socket protocol is the same (PUB frames
 * {@code [topic, seq, payload]}, ROUTER replay, data-parallel port offsets); the payloads, block ids and replay
 * replies differ. docs/simulator.md tabulates the differences.
 */
public enum KvPublisherKind {
    /**
     * vLLM ({@code vllm/distributed/kv_events.py}): runs of blocks per {@code BlockStored} with unsigned 64-bit ids,
     * {@code medium} {@code GPU}/{@code CPU}, map or array events; replay replies carry the topic.
     */
    VLLM,
    /**
     * SGLang ({@code python/sglang/srt/disaggregation/kv_events.py} and its radix cache's event mixin): one
     * {@code BlockStored} per page with signed 64-bit ids, positional arrays with every field, {@code medium}
     * {@code GPU}/{@code CPU_PINNED}; replay replies without the topic frame.
     */
    SGLANG;

    /** Parses {@code vllm} or {@code sglang}, case-insensitively. */
    public static KvPublisherKind parse(String value) {
        try {
            return valueOf(value.trim().toUpperCase(Locale.ROOT));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("kv-publisher must be vllm or sglang, was '" + value + "'");
        }
    }

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
