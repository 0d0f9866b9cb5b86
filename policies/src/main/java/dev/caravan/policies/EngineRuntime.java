package dev.caravan.policies;

import java.util.Locale;

/**
 * Which inference engine serves a worker: the two speak the same OpenAI API but differ in their own endpoints (SGLang's
 * {@code /flush_cache}, vLLM's {@code /reset_prefix_cache}; {@code /v1/tokenize} and {@code /tokenize}), so the gateway
 * calls each worker where its engine listens. SGLang's {@code runtime} field of {@code POST /workers} uses the same
 * names.
 */
public enum EngineRuntime {
    SGLANG,
    VLLM;

    /**
     * Parses {@code sglang} or {@code vllm}, case-insensitively.
     *
     * @throws IllegalArgumentException naming the bad value and the accepted ones
     */
    public static EngineRuntime parse(String value) {
        if (value != null) {
            for (EngineRuntime r : values()) {
                if (r.wireName().equalsIgnoreCase(value.trim())) {
                    return r;
                }
            }
        }
        throw new IllegalArgumentException("runtime must be one of sglang, vllm, was '" + value + "'");
    }

    /** The wire name: {@code sglang}, {@code vllm}. */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
