package dev.caravan.processors.reliability;

/** A worker breaker's state as the gateway reports it; {@link #code()} is the {@code caravan_worker_cb_state} value. */
public enum BreakerState {
    CLOSED(0),
    OPEN(1),
    HALF_OPEN(2);

    private final int code;

    BreakerState(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    /** Lower-case name for logs and metric labels ({@code half_open}). */
    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
