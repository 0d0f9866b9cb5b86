package dev.caravan.processors.kv;

import java.time.Duration;

import dev.caravan.policies.KvAwareConfig;
import dev.caravan.policies.kv.KvBlockIndex;
import dev.caravan.policies.kv.ParityConfig;

/**
 * The gateway's KV-event settings: the {@code KV events and kv_aware} rows of the flag table (docs/configuration.md),
 * read by {@code KvFeature}. The precise policy's own options ({@code kv-tokenizer}, ...) are policy options
 * and live in {@code KvAwareConfig}; the two it shares with the tree calibration are repeated here. The compact
 * constructor keeps the record's invariants; the flag rows state the same bounds or tighter ones, so a value the table
 * accepts always builds.
 *
 * @param eventsEndpointTemplate KV-event PUB endpoint of workers registered without one ({@code {host}}/{@code {port}}
 *                               from the worker URL), or null
 * @param replayEndpointTemplate replay ROUTER endpoint of workers registered without one, or null
 * @param topics                 comma-separated topic prefixes the SUB sockets subscribe to; "" = everything
 * @param replayTimeout          longest wait for one replay
 * @param maxBlocksPerWorker     block index bound per engine rank
 * @param silenceThreshold       silence that makes a serving worker's publisher "silent"; ZERO disables the check
 * @param calibrateTree          evict cache_aware tree text when engines report evictions
 * @param treeSizeAuto           {@code --max-tree-size auto}: per-worker tree budgets from engine KV capacity
 * @param charsPerToken          characters per token assumed when turning blocks into tree characters
 * @param blockSize              block size assumed while an engine has not reported its own
 * @param parityExpiry           how long a predicted block may wait for its {@code BlockStored}
 * @param parityWarnBelow        recent parity agreement below which the self-check warns
 */
public record KvSettings(String eventsEndpointTemplate, String replayEndpointTemplate, String topics,
                         Duration replayTimeout, int maxBlocksPerWorker, Duration silenceThreshold,
                         boolean calibrateTree, boolean treeSizeAuto, int charsPerToken, int blockSize,
                         Duration parityExpiry, double parityWarnBelow) {

    public static final Duration DEFAULT_REPLAY_TIMEOUT = KvEventIngestor.DEFAULT_REPLAY_TIMEOUT;
    public static final int DEFAULT_MAX_BLOCKS_PER_WORKER = KvBlockIndex.DEFAULT_MAX_BLOCKS_PER_RANK;
    /** Long enough that an idle-then-busy engine's first batch arrives; short enough to notice within a minute. */
    public static final Duration DEFAULT_SILENCE_THRESHOLD = Duration.ofSeconds(30);
    public static final boolean DEFAULT_CALIBRATE_TREE = false;
    public static final Duration DEFAULT_PARITY_EXPIRY = Duration.ofSeconds(ParityConfig.DEFAULT_EXPIRY_SECONDS);
    public static final double DEFAULT_PARITY_WARN_BELOW = ParityConfig.DEFAULT_WARN_BELOW;

    public KvSettings {
        eventsEndpointTemplate = blankToNull(eventsEndpointTemplate);
        replayEndpointTemplate = blankToNull(replayEndpointTemplate);
        topics = topics == null ? "" : topics.trim();
        if (replayTimeout.isNegative() || replayTimeout.isZero()) {
            throw new IllegalArgumentException("replayTimeout must be positive, was " + replayTimeout);
        }
        if (maxBlocksPerWorker < 1) {
            throw new IllegalArgumentException("maxBlocksPerWorker must be >= 1, was " + maxBlocksPerWorker);
        }
        if (silenceThreshold.isNegative()) {
            throw new IllegalArgumentException("silenceThreshold must be >= 0, was " + silenceThreshold);
        }
        if (parityExpiry.isNegative() || parityExpiry.isZero()) {
            throw new IllegalArgumentException("parityExpiry must be positive, was " + parityExpiry);
        }
        if (!(parityWarnBelow >= 0 && parityWarnBelow <= 1)) {
            throw new IllegalArgumentException("parityWarnBelow must be in [0,1], was " + parityWarnBelow);
        }
        if (charsPerToken < 1 || blockSize < 1) {
            throw new IllegalArgumentException("charsPerToken and blockSize must be >= 1, were " + charsPerToken
                    + " and " + blockSize);
        }
    }

    /** No endpoint templates, every other setting at its default (as the flag table's). */
    public static KvSettings defaults() {
        return new KvSettings(null, null, "", DEFAULT_REPLAY_TIMEOUT, DEFAULT_MAX_BLOCKS_PER_WORKER,
                DEFAULT_SILENCE_THRESHOLD, DEFAULT_CALIBRATE_TREE, false, KvAwareConfig.DEFAULT_CHARS_PER_TOKEN,
                KvAwareConfig.DEFAULT_BLOCK_SIZE, DEFAULT_PARITY_EXPIRY, DEFAULT_PARITY_WARN_BELOW);
    }

    /** The self-check's configuration: these expiry and threshold, the library defaults for the rest. */
    public ParityConfig parityConfig() {
        return new ParityConfig(parityExpiry, ParityConfig.DEFAULT_WINDOW, parityWarnBelow,
                ParityConfig.DEFAULT_MIN_SAMPLES, ParityConfig.DEFAULT_MAX_PENDING_PER_WORKER);
    }

    /** True when engine capacities are needed: for auto tree budgets, or the calibration's per-engine block size. */
    public boolean pollsCapacity() {
        return treeSizeAuto || calibrateTree;
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s.trim();
    }
}
