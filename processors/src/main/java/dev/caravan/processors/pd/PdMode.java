package dev.caravan.processors.pd;

import java.util.Locale;

/**
 * How a P/D request reaches its two engines.
 * <ul>
 *   <li>{@link #SGLANG}: both legs at once with the same body plus a bootstrap rendezvous ({@code bootstrap_host},
 *       {@code bootstrap_port}, {@code bootstrap_room}); the decode engine pulls the KV from the prefill engine.</li>
 *   <li>{@link #VLLM}: two steps, as vLLM's disaggregated proxy: prefill with {@code max_tokens: 1} and
 *       {@code kv_transfer_params: {do_remote_decode: true}}, then decode with the {@code kv_transfer_params} the prefill
 *       returned.</li>
 * </ul>
 */
public enum PdMode {
    SGLANG,
    VLLM;

    /** The name used in flags and, prefixed {@code pd-}, in the attempt body's route ({@code attempt-pd-sglang}). */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * @throws IllegalArgumentException naming the bad value and the accepted ones
     */
    public static PdMode parse(String value) {
        if (value != null) {
            for (PdMode m : values()) {
                if (m.wireName().equalsIgnoreCase(value.trim())) {
                    return m;
                }
            }
        }
        throw new IllegalArgumentException("P/D mode must be sglang or vllm, was '" + value + "'");
    }
}
