package dev.caravan.sim;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Injected misbehaviour of one engine, replaced atomically ({@code POST /sim/faults}, {@link SimEngine#setFaults},
 * CLI flags). {@link #NONE} resets everything.
 *
 * @param errorRate        fraction of inference requests answered with {@code errorStatus} instead of being served
 * @param errorStatus      HTTP status of injected errors (4xx or 5xx)
 * @param healthFailing    {@code /health} and {@code /health_generate} answer 503
 * @param hang             inference requests are accepted but never answered (until the client goes away)
 * @param addedLatencyMs   extra delay before each inference request enters the engine
 * @param dropAfterChunks  close the connection after this many streamed chunks (0 = before any byte, also for
 *                         non-streaming requests); negative = off
 * @param stopKvEvents     KV events are no longer published nor sequenced (a dead publisher; subscribers go stale)
 * @param dropKvEvents     KV events are sequenced and kept for replay but not sent live (a gap replay can fill)
 */
public record Faults(double errorRate, int errorStatus, boolean healthFailing, boolean hang, long addedLatencyMs,
                     int dropAfterChunks, boolean stopKvEvents, boolean dropKvEvents) {

    public static final int DEFAULT_ERROR_STATUS = 500;
    /** No fault at all. */
    public static final Faults NONE = new Faults(0, DEFAULT_ERROR_STATUS, false, false, 0, -1, false, false);

    public Faults {
        if (!(errorRate >= 0 && errorRate <= 1)) {
            throw new IllegalArgumentException("error_rate must be in [0,1], was " + errorRate);
        }
        if (errorStatus < 400 || errorStatus > 599) {
            throw new IllegalArgumentException("error_status must be in [400,599], was " + errorStatus);
        }
        if (addedLatencyMs < 0) {
            throw new IllegalArgumentException("added_latency_ms must be >= 0, was " + addedLatencyMs);
        }
    }

    /**
     * This fault set with the fields present in {@code json} replaced (snake_case keys as in the table of
     * docs/simulator.md); {@code {"reset": true}} starts from {@link #NONE}.
     *
     * @throws IllegalArgumentException naming an unknown key or a value of the wrong type
     */
    public Faults merge(Map<?, ?> json) {
        Faults f = Boolean.TRUE.equals(json.get("reset")) ? NONE : this;
        double errorRate = f.errorRate;
        int errorStatus = f.errorStatus;
        boolean healthFailing = f.healthFailing;
        boolean hang = f.hang;
        long addedLatencyMs = f.addedLatencyMs;
        int dropAfterChunks = f.dropAfterChunks;
        boolean stopKv = f.stopKvEvents;
        boolean dropKv = f.dropKvEvents;
        for (Map.Entry<?, ?> e : json.entrySet()) {
            String key = String.valueOf(e.getKey());
            Object v = e.getValue();
            switch (key) {
                case "reset" -> bool(key, v);
                case "error_rate" -> errorRate = number(key, v).doubleValue();
                case "error_status" -> errorStatus = number(key, v).intValue();
                case "health_failing" -> healthFailing = bool(key, v);
                case "hang" -> hang = bool(key, v);
                case "added_latency_ms" -> addedLatencyMs = number(key, v).longValue();
                case "drop_after_chunks" -> dropAfterChunks = number(key, v).intValue();
                case "stop_kv_events" -> stopKv = bool(key, v);
                case "drop_kv_events" -> dropKv = bool(key, v);
                default -> throw new IllegalArgumentException("unknown fault '" + key + "' (known: error_rate, "
                        + "error_status, health_failing, hang, added_latency_ms, drop_after_chunks, stop_kv_events, "
                        + "drop_kv_events, reset)");
            }
        }
        return new Faults(errorRate, errorStatus, healthFailing, hang, addedLatencyMs, dropAfterChunks, stopKv, dropKv);
    }

    /** JSON view with the same keys {@link #merge} accepts. */
    public Map<String, Object> toJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("error_rate", errorRate);
        m.put("error_status", errorStatus);
        m.put("health_failing", healthFailing);
        m.put("hang", hang);
        m.put("added_latency_ms", addedLatencyMs);
        m.put("drop_after_chunks", dropAfterChunks);
        m.put("stop_kv_events", stopKvEvents);
        m.put("drop_kv_events", dropKvEvents);
        return m;
    }

    private static Number number(String key, Object v) {
        if (v instanceof Number n) {
            return n;
        }
        throw new IllegalArgumentException(key + " must be a number, was " + v);
    }

    private static boolean bool(String key, Object v) {
        if (v instanceof Boolean b) {
            return b;
        }
        throw new IllegalArgumentException(key + " must be true or false, was " + v);
    }
}
