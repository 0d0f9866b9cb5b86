package dev.caravan.policies.kv;

import java.util.Locale;

/**
 * Where an engine keeps a cached block, from the {@code medium} of its KV events. A hit on a lower tier still saves
 * prefill, but the block must first be copied back to the GPU; {@code kv_aware} weighs tiers with its
 * {@code kv-cpu-weight} and {@code kv-disk-weight} options (docs/kv-events.md).
 */
public enum KvTier {
    /** GPU memory: vLLM {@code "GPU"}, SGLang {@code "GPU"}, or no medium at all (older engines). */
    GPU,
    /** Host memory: vLLM's offloading connector {@code "CPU"}, SGLang HiCache's {@code "CPU_PINNED"}. */
    CPU,
    /** Local or shared storage: vLLM {@code "STORAGE"}, SGLang {@code "DISK"}, and {@code "SSD"}. */
    DISK;

    /** The tier of an event's medium; null for a medium Caravan does not know (such events are counted, not indexed). */
    public static KvTier of(String medium) {
        if (medium == null || medium.equals("GPU")) {
            return GPU; // the common case, without a trimmed upper-case copy
        }
        return switch (medium.trim().toUpperCase(Locale.ROOT)) {
            case "GPU", "" -> GPU;
            case "CPU", "CPU_PINNED", "HOST" -> CPU;
            case "DISK", "STORAGE", "SSD" -> DISK;
            default -> null;
        };
    }
}
