package dev.caravan.bench.soak;

/** Why a request of the soak failed, as its client saw it. */
enum Cause {
    /** The TCP connection was refused (no gateway listening). */
    CONNECTION_REFUSED,
    /** The connection broke before the response ended (reset, closed mid-body). */
    CONNECTION_RESET,
    /** A stream ended without {@code data: [DONE]} and without an error event. */
    STREAM_TRUNCATED,
    /** A stream carried an error event. */
    STREAM_ERROR_EVENT,
    /** 502 {@code upstream_error}. */
    UPSTREAM_ERROR,
    /** 504 {@code upstream_timeout}. */
    UPSTREAM_TIMEOUT,
    /** 503 {@code no_available_workers}. */
    NO_AVAILABLE_WORKERS,
    /** 503 {@code shutting_down}. */
    SHUTTING_DOWN,
    /** Any other non-2xx status (the status and error code are kept with the failure). */
    OTHER_STATUS,
    /** The client's own deadline passed without an answer. */
    CLIENT_TIMEOUT,
    /** Any other I/O failure. */
    OTHER_IO
}
