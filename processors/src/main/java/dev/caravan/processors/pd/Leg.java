package dev.caravan.processors.pd;

import java.util.Locale;

/** One half of a P/D request: the engine that computes the prompt's KV, or the engine that generates the answer. */
public enum Leg {
    PREFILL,
    DECODE;

    /** {@code prefill} / {@code decode}: metric tags, headers, logs. */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
