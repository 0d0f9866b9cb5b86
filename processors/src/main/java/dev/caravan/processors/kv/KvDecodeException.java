package dev.caravan.processors.kv;

/**
 * A KV-event message that cannot be decoded. The pipeline counts it by {@link #reason()} and skips the message; it never
 * stops the route.
 */
public class KvDecodeException extends Exception {

    private static final long serialVersionUID = 1L;

    /** What was wrong, the label of the decode-error metric. */
    public enum Reason {
        /** Not the 3 frames topic, sequence, payload. */
        FRAME_COUNT,
        /** The sequence frame is not 8 bytes. */
        SEQUENCE,
        /** The payload is not a msgpack event batch (truncated, wrong types, trailing bytes). */
        PAYLOAD
    }

    private final Reason reason;

    public KvDecodeException(Reason reason, String message) {
        super(message);
        this.reason = reason;
    }

    public KvDecodeException(Reason reason, String message, Throwable cause) {
        super(message, cause);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }
}
