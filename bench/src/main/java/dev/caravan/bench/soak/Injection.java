package dev.caravan.bench.soak;

/**
 * One fault as it ran: what, on which engine or replica, from injection to recovery (nanoTime), and how long after the
 * recovery the replicas agreed again (negative: not within the limit).
 *
 * @param kind         the fault
 * @param target       the engine index, or the replica index of a replica-scoped fault; -1 when neither applies
 * @param startNanos   when it was injected
 * @param endNanos     when its recovery was done (the engine or replica back, the link healed, the file restored)
 * @param agreeSeconds seconds from {@code endNanos} until both replicas agreed again, or -1 if they did not in time
 */
record Injection(FaultKind kind, int target, long startNanos, long endNanos, double agreeSeconds) {

    /** Whether {@code nanos} falls in this fault's window: from the injection to the recovery plus {@code grace}. */
    boolean covers(long nanos, long graceNanos) {
        return nanos >= startNanos && nanos <= endNanos + graceNanos;
    }
}
