package dev.caravan.processors.kv;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

import dev.caravan.processors.kv.KvDecodeException.Reason;

/**
 * Counters of one worker's KV-event pipeline, the source of the {@code caravan_kv_*} metrics (bound to Micrometer by
 * the gateway). Written by the worker's pipeline, read from anywhere.
 */
public final class KvWorkerStats {

    final LongAdder batches = new LongAdder();
    final LongAdder blockStoredEvents = new LongAdder();
    final LongAdder blockRemovedEvents = new LongAdder();
    final LongAdder allBlocksClearedEvents = new LongAdder();
    final LongAdder nonGpuEvents = new LongAdder();
    final LongAdder skippedEvents = new LongAdder();
    final LongAdder duplicates = new LongAdder();
    final LongAdder gaps = new LongAdder();
    final LongAdder replays = new LongAdder();
    final LongAdder replayedBatches = new LongAdder();
    final LongAdder replayFailures = new LongAdder();
    final LongAdder unrecoveredBatches = new LongAdder();
    final LongAdder restarts = new LongAdder();
    final LongAdder orphanBlocks = new LongAdder();
    private final Map<Reason, LongAdder> decodeErrors = new EnumMap<>(Reason.class);
    volatile long lastEventNanos;
    volatile long processedAtLastEvent;

    KvWorkerStats(long nowNanos, long processed) {
        for (Reason r : Reason.values()) {
            decodeErrors.put(r, new LongAdder());
        }
        lastEventNanos = nowNanos;
        processedAtLastEvent = processed;
    }

    void decodeError(Reason reason) {
        decodeErrors.get(reason).increment();
    }

    /** Batches applied (live and replayed). */
    public long batches() { return batches.sum(); }
    public long blockStoredEvents() { return blockStoredEvents.sum(); }
    public long blockRemovedEvents() { return blockRemovedEvents.sum(); }
    public long allBlocksClearedEvents() { return allBlocksClearedEvents.sum(); }
    /** Events about lower tiers (CPU offload, storage), indexed with their tier. */
    public long nonGpuEvents() { return nonGpuEvents.sum(); }
    /** Events the decoder skipped inside otherwise good batches (unknown tag, malformed field). */
    public long skippedEvents() { return skippedEvents.sum(); }
    /** Messages whose sequence repeated the previous one. */
    public long duplicates() { return duplicates.sum(); }
    /** Sequence gaps detected. */
    public long gaps() { return gaps.sum(); }
    /** Replay requests sent. */
    public long replays() { return replays.sum(); }
    /** Missing batches recovered by replay and applied. */
    public long replayedBatches() { return replayedBatches.sum(); }
    /** Replays that timed out, failed, or had no endpoint to go to. */
    public long replayFailures() { return replayFailures.sum(); }
    /** Missing batches never recovered (no replay endpoint, older than the engine's buffer, timeout). */
    public long unrecoveredBatches() { return unrecoveredBatches.sum(); }
    /** Publisher restarts detected (sequence went backwards); each dropped that rank's index entries. */
    public long restarts() { return restarts.sum(); }
    /** Stored blocks the index dropped because their parent was never reported (late join, short replay). */
    public long orphanBlocks() { return orphanBlocks.sum(); }
    /** Messages skipped as undecodable, for one reason. */
    public long decodeErrors(Reason reason) { return decodeErrors.get(reason).sum(); }

    /** Messages skipped as undecodable, all reasons. */
    public long decodeErrors() {
        long n = 0;
        for (LongAdder a : decodeErrors.values()) {
            n += a.sum();
        }
        return n;
    }

    /** Nanoseconds since the last message (or registration), on the ingestor's clock. */
    public long lastEventAgeNanos(long nowNanos) {
        return nowNanos - lastEventNanos;
    }
}
