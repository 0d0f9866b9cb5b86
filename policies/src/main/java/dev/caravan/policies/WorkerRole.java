package dev.caravan.policies;

import java.util.Locale;

/** The part a worker plays in the fleet: a regular engine, or one half of a prefill/decode pair. */
public enum WorkerRole {
    REGULAR,
    PREFILL,
    DECODE;

    /**
     * Parses SGLang's {@code worker_type} values ({@code regular}, {@code prefill}, {@code decode}), case-insensitively.
     * A null or empty value means {@link #REGULAR}.
     *
     * @throws IllegalArgumentException naming the bad value and the accepted ones
     */
    public static WorkerRole parse(String value) {
        if (value == null || value.isBlank()) {
            return REGULAR;
        }
        try {
            return valueOf(value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("worker_type must be one of regular, prefill, decode, was '" + value + "'");
        }
    }

    /** The wire name, as SGLang spells it. */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
