package dev.caravan.sim.kv;

import java.util.Locale;

/** How events inside a batch are encoded: vLLM's current {@code type}-tagged maps, or the legacy positional arrays. */
public enum KvEventLayout {
    /** {@code {"type": "BlockStored", "block_hashes": ..., ...}} — vLLM after PR #42892 (v0.26+). */
    MAP,
    /** {@code ["BlockStored", hashes, parent, tokens, block_size, lora_id, medium, lora_name]} — older vLLM, SGLang. */
    ARRAY;

    /** Parses {@code map} or {@code array}, case-insensitively. */
    public static KvEventLayout parse(String value) {
        try {
            return valueOf(value.trim().toUpperCase(Locale.ROOT));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("kv-events-layout must be map or array, was '" + value + "'");
        }
    }
}
