package dev.caravan.sim;

import java.util.Locale;

/**
 * Whose HTTP API a simulated engine serves. The OpenAI endpoints are common; the engines' own differ, and a gateway
 * that must call each engine where it listens (a cache flush, {@code /tokenize}, telling the engines apart) is only
 * tested against engines that refuse the other's paths:
 * <ul>
 *   <li>{@link #SGLANG}: SGLang's {@code /get_server_info}, {@code /server_info}, {@code /get_model_info},
 *       {@code /model_info}, {@code /get_load}, {@code /flush_cache}, {@code /generate}, {@code /v1/tokenize},
 *       {@code /v1/detokenize}, {@code /v1/classify}; not vLLM's {@code /version}, {@code /reset_prefix_cache},
 *       {@code /classify};</li>
 *   <li>{@link #VLLM}: vLLM's {@code /version}, {@code /reset_prefix_cache} (its dev-mode endpoint), {@code /tokenize},
 *       {@code /detokenize}, {@code /classify}, {@code /rerank}; not SGLang's own endpoints above;</li>
 *   <li>{@link #BOTH}: every path (the simulator's default, so any client works against it).</li>
 * </ul>
 */
public enum EngineApi {
    BOTH,
    SGLANG,
    VLLM;

    public static EngineApi parse(String value) {
        try {
            return valueOf(value.trim().toUpperCase(Locale.ROOT));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("engine-api must be both, sglang or vllm, was '" + value + "'");
        }
    }

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public boolean servesSglang() {
        return this != VLLM;
    }

    public boolean servesVllm() {
        return this != SGLANG;
    }
}
