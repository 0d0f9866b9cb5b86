package dev.caravan.policies.kv;

/**
 * Settings of the precise {@link KvAwarePolicy}.
 *
 * @param overlapWeight         weight of uncached prefill blocks against active decode blocks in the cost (Dynamo's
 *                              {@code --kv-overlap-score-weight}); 0 ignores the cache, large values chase hits
 *                              (default {@value #DEFAULT_OVERLAP_WEIGHT})
 * @param balanceAbsThreshold   imbalance guard, absolute part: in-flight max − min must exceed this (default
 *                              {@value #DEFAULT_BALANCE_ABS_THRESHOLD}, SGLang's launcher default)
 * @param balanceRelThreshold   imbalance guard, relative part: max must exceed min × this (default
 *                              {@value #DEFAULT_BALANCE_REL_THRESHOLD})
 * @param decodeLoadSource      where a worker's active decode blocks come from (default ROUTER)
 * @param initialRequestBlocks  blocks per in-flight request assumed before the policy has seen any request (the
 *                              running estimate then takes over; default {@value #DEFAULT_INITIAL_REQUEST_BLOCKS})
 */
public record KvAwareConfig(double overlapWeight, int balanceAbsThreshold, double balanceRelThreshold,
                            DecodeLoadSource decodeLoadSource, double initialRequestBlocks) {

    public static final double DEFAULT_OVERLAP_WEIGHT = 1.0;
    public static final int DEFAULT_BALANCE_ABS_THRESHOLD = 64;
    public static final double DEFAULT_BALANCE_REL_THRESHOLD = 1.5;
    public static final DecodeLoadSource DEFAULT_DECODE_LOAD_SOURCE = DecodeLoadSource.ROUTER;
    public static final double DEFAULT_INITIAL_REQUEST_BLOCKS = 32.0;

    /** How {@link KvAwarePolicy} estimates a worker's active decode blocks. */
    public enum DecodeLoadSource {
        /**
         * The router's view: the worker's in-flight requests through this gateway × the running mean of routed
         * requests' blocks. Always current, blind to other gateways' traffic.
         */
        ROUTER,
        /**
         * The engine's view: its last reported token load ({@code EngineLoad.tokens}) ÷ block size, falling back to
         * ROUTER while the engine has not reported one. Sees all traffic, as stale as the load poll.
         */
        ENGINE
    }

    public KvAwareConfig {
        if (!(overlapWeight >= 0) || Double.isInfinite(overlapWeight)) {
            throw new IllegalArgumentException("overlapWeight must be a finite number >= 0, was " + overlapWeight);
        }
        if (balanceAbsThreshold < 0) {
            throw new IllegalArgumentException("balanceAbsThreshold must be >= 0, was " + balanceAbsThreshold);
        }
        if (!(balanceRelThreshold >= 1.0) || Double.isInfinite(balanceRelThreshold)) {
            throw new IllegalArgumentException("balanceRelThreshold must be a finite number >= 1, was "
                    + balanceRelThreshold);
        }
        if (decodeLoadSource == null) {
            throw new IllegalArgumentException("decodeLoadSource must be ROUTER or ENGINE, was null");
        }
        if (!(initialRequestBlocks > 0) || Double.isInfinite(initialRequestBlocks)) {
            throw new IllegalArgumentException("initialRequestBlocks must be a finite number > 0, was "
                    + initialRequestBlocks);
        }
    }

    public static KvAwareConfig defaults() {
        return new KvAwareConfig(DEFAULT_OVERLAP_WEIGHT, DEFAULT_BALANCE_ABS_THRESHOLD, DEFAULT_BALANCE_REL_THRESHOLD,
                DEFAULT_DECODE_LOAD_SOURCE, DEFAULT_INITIAL_REQUEST_BLOCKS);
    }
}
