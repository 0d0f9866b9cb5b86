package dev.caravan.sim;

import java.util.Locale;

/** What a simulated engine does with a request: everything (regular), only the prompt (prefill), or only the output. */
public enum EngineRole {
    REGULAR,
    /** Computes the prompt's KV, answers with one token, and declares the request's bootstrap room ready. */
    PREFILL,
    /** Requires bootstrap fields, waits for the prefill engine's room, then decodes from a warm cache. */
    DECODE;

    public static EngineRole parse(String value) {
        try {
            return valueOf(value.trim().toUpperCase(Locale.ROOT));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("role must be regular, prefill or decode, was '" + value + "'");
        }
    }

    /** SGLang's {@code disaggregation_mode} name: {@code null}, {@code prefill}, {@code decode}. */
    public String disaggregationMode() {
        return this == REGULAR ? "null" : name().toLowerCase(Locale.ROOT);
    }
}
