package dev.caravan.policies;

import java.util.Locale;

import dev.caravan.policies.kv.BlockHasher;
import dev.caravan.policies.text.PseudoTokenizer;
import dev.caravan.policies.text.TokenizerSource;

/**
 * Configuration of the precise {@code kv_aware} policy ({@code dev.caravan.policies.kv.KvAwarePolicy}): how the
 * router reproduces the engines' block hashes, and how it weighs cache against load. The first four components must
 * equal the engines' settings, or no hash ever matches (the parity self-check then reports it).
 *
 * @param tokenizer            {@value TokenizerSource#PSEUDO} (the simulator's pseudo-tokenizer) or the path of the
 *                             model's HuggingFace {@code tokenizer.json}; default {@value #DEFAULT_TOKENIZER}
 * @param charsPerToken        code points per token of the pseudo-tokenizer (the simulator's {@code --chars-per-token});
 *                             in [{@value #MIN_CHARS_PER_TOKEN},{@value #MAX_CHARS_PER_TOKEN}]; default
 *                             {@value #DEFAULT_CHARS_PER_TOKEN}
 * @param blockSize            the engines' KV block size in tokens; in [{@value #MIN_BLOCK_SIZE},{@value #MAX_BLOCK_SIZE}];
 *                             default {@value #DEFAULT_BLOCK_SIZE}
 * @param hashSeed             the engines' {@code PYTHONHASHSEED}; default {@value #DEFAULT_HASH_SEED}
 * @param overlapWeight        weight of uncached prefill blocks against active decode blocks in the cost (Dynamo's
 *                             {@code --kv-overlap-score-weight}); 0 ignores the cache, large values chase hits; finite,
 *                             &gt;= 0; default {@value #DEFAULT_OVERLAP_WEIGHT}
 * @param balanceAbsThreshold  imbalance guard, absolute part: in-flight max − min must exceed this; &gt;= 0; default
 *                             {@value #DEFAULT_BALANCE_ABS_THRESHOLD} (SGLang's launcher default)
 * @param balanceRelThreshold  imbalance guard, relative part: max must exceed min × this; finite, &gt;= 1; default
 *                             {@value #DEFAULT_BALANCE_REL_THRESHOLD}
 * @param decodeLoadSource     where a worker's active decode blocks come from; default ROUTER
 * @param initialRequestBlocks blocks per in-flight request assumed before the policy has seen any request (the running
 *                             estimate then takes over); finite, &gt; 0; default {@value #DEFAULT_INITIAL_REQUEST_BLOCKS}
 */
public record KvAwareConfig(String tokenizer, int charsPerToken, int blockSize, String hashSeed, double overlapWeight,
                            int balanceAbsThreshold, double balanceRelThreshold, DecodeLoadSource decodeLoadSource,
                            double initialRequestBlocks) implements PolicyConfig {

    public static final String DEFAULT_TOKENIZER = TokenizerSource.PSEUDO;
    public static final int DEFAULT_CHARS_PER_TOKEN = PseudoTokenizer.DEFAULT_CHARS_PER_TOKEN;
    public static final int DEFAULT_BLOCK_SIZE = BlockHasher.DEFAULT_BLOCK_SIZE;
    public static final String DEFAULT_HASH_SEED = BlockHasher.DEFAULT_SEED;
    public static final double DEFAULT_OVERLAP_WEIGHT = 1.0;
    public static final int DEFAULT_BALANCE_ABS_THRESHOLD = 64;
    public static final double DEFAULT_BALANCE_REL_THRESHOLD = 1.5;
    public static final DecodeLoadSource DEFAULT_DECODE_LOAD_SOURCE = DecodeLoadSource.ROUTER;
    public static final double DEFAULT_INITIAL_REQUEST_BLOCKS = 32.0;
    /** Bounds of {@code charsPerToken}; the gateway's {@code --kv-chars-per-token} row states the same range. */
    public static final int MIN_CHARS_PER_TOKEN = 1;
    public static final int MAX_CHARS_PER_TOKEN = 64;
    /** Bounds of {@code blockSize}; the gateway's {@code --kv-block-size} row states the same range. */
    public static final int MIN_BLOCK_SIZE = 1;
    public static final int MAX_BLOCK_SIZE = 4096;

    /** How {@code kv_aware} estimates a worker's active decode blocks. */
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
        ENGINE;

        static DecodeLoadSource parse(String value) {
            try {
                return valueOf(value.trim().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("decodeLoadSource (" + KV_DECODE_LOAD_SOURCE
                        + ") must be router or engine, was '" + value + "'");
            }
        }
    }

    public KvAwareConfig {
        if (tokenizer == null || tokenizer.isBlank()) {
            throw new IllegalArgumentException("tokenizer (" + KV_TOKENIZER + ") must be '" + TokenizerSource.PSEUDO
                    + "' or the path of a tokenizer.json, was '" + tokenizer + "'");
        }
        Checks.atLeast(charsPerToken, MIN_CHARS_PER_TOKEN, "charsPerToken", KV_CHARS_PER_TOKEN);
        Checks.atMost(charsPerToken, MAX_CHARS_PER_TOKEN, "charsPerToken", KV_CHARS_PER_TOKEN);
        Checks.atLeast(blockSize, MIN_BLOCK_SIZE, "blockSize", KV_BLOCK_SIZE);
        Checks.atMost(blockSize, MAX_BLOCK_SIZE, "blockSize", KV_BLOCK_SIZE);
        if (hashSeed == null) {
            throw new IllegalArgumentException("hashSeed (" + KV_HASH_SEED + ") must not be null");
        }
        Checks.nonNegativeFinite(overlapWeight, "overlapWeight", KV_OVERLAP_WEIGHT);
        Checks.atLeast(balanceAbsThreshold, 0, "balanceAbsThreshold", BALANCE_ABS_THRESHOLD);
        Checks.nonNegativeFinite(balanceRelThreshold, "balanceRelThreshold", BALANCE_REL_THRESHOLD);
        if (balanceRelThreshold < 1) {
            throw new IllegalArgumentException("balanceRelThreshold (" + BALANCE_REL_THRESHOLD + ") must be >= 1, was "
                    + balanceRelThreshold);
        }
        if (decodeLoadSource == null) {
            throw new IllegalArgumentException("decodeLoadSource (" + KV_DECODE_LOAD_SOURCE
                    + ") must be router or engine, was null");
        }
        Checks.positiveFinite(initialRequestBlocks, "initialRequestBlocks", KV_INITIAL_REQUEST_BLOCKS);
    }

    public static KvAwareConfig defaults() {
        return new KvAwareConfig(DEFAULT_TOKENIZER, DEFAULT_CHARS_PER_TOKEN, DEFAULT_BLOCK_SIZE, DEFAULT_HASH_SEED,
                DEFAULT_OVERLAP_WEIGHT, DEFAULT_BALANCE_ABS_THRESHOLD, DEFAULT_BALANCE_REL_THRESHOLD,
                DEFAULT_DECODE_LOAD_SOURCE, DEFAULT_INITIAL_REQUEST_BLOCKS);
    }

    static KvAwareConfig from(PolicyOptions o) {
        return new KvAwareConfig(
                o.getString(KV_TOKENIZER, DEFAULT_TOKENIZER),
                o.getInt(KV_CHARS_PER_TOKEN, DEFAULT_CHARS_PER_TOKEN),
                o.getInt(KV_BLOCK_SIZE, DEFAULT_BLOCK_SIZE),
                o.getString(KV_HASH_SEED, DEFAULT_HASH_SEED),
                o.getDouble(KV_OVERLAP_WEIGHT, DEFAULT_OVERLAP_WEIGHT),
                o.getInt(BALANCE_ABS_THRESHOLD, DEFAULT_BALANCE_ABS_THRESHOLD),
                o.getDouble(BALANCE_REL_THRESHOLD, DEFAULT_BALANCE_REL_THRESHOLD),
                DecodeLoadSource.parse(o.getString(KV_DECODE_LOAD_SOURCE, DEFAULT_DECODE_LOAD_SOURCE.name())),
                o.getDouble(KV_INITIAL_REQUEST_BLOCKS, DEFAULT_INITIAL_REQUEST_BLOCKS));
    }

    /** The engines' block hash as this configuration describes it. */
    public BlockHasher hasher() {
        return new BlockHasher(blockSize, hashSeed);
    }

    public KvAwareConfig withTokenizer(String v) {
        return new KvAwareConfig(v, charsPerToken, blockSize, hashSeed, overlapWeight, balanceAbsThreshold,
                balanceRelThreshold, decodeLoadSource, initialRequestBlocks);
    }

    public KvAwareConfig withBlockSize(int v) {
        return new KvAwareConfig(tokenizer, charsPerToken, v, hashSeed, overlapWeight, balanceAbsThreshold,
                balanceRelThreshold, decodeLoadSource, initialRequestBlocks);
    }

    public KvAwareConfig withHashSeed(String v) {
        return new KvAwareConfig(tokenizer, charsPerToken, blockSize, v, overlapWeight, balanceAbsThreshold,
                balanceRelThreshold, decodeLoadSource, initialRequestBlocks);
    }

    public KvAwareConfig withOverlapWeight(double v) {
        return new KvAwareConfig(tokenizer, charsPerToken, blockSize, hashSeed, v, balanceAbsThreshold,
                balanceRelThreshold, decodeLoadSource, initialRequestBlocks);
    }

    public KvAwareConfig withBalance(int abs, double rel) {
        return new KvAwareConfig(tokenizer, charsPerToken, blockSize, hashSeed, overlapWeight, abs, rel,
                decodeLoadSource, initialRequestBlocks);
    }

    public KvAwareConfig withDecodeLoadSource(DecodeLoadSource v) {
        return new KvAwareConfig(tokenizer, charsPerToken, blockSize, hashSeed, overlapWeight, balanceAbsThreshold,
                balanceRelThreshold, v, initialRequestBlocks);
    }

    public KvAwareConfig withInitialRequestBlocks(double v) {
        return new KvAwareConfig(tokenizer, charsPerToken, blockSize, hashSeed, overlapWeight, balanceAbsThreshold,
                balanceRelThreshold, decodeLoadSource, v);
    }

    @Override
    public <R> R accept(Visitor<R> visitor) {
        return visitor.visit(this);
    }

    @Override
    public String policyName() {
        return PolicyName.KV_AWARE.wireName();
    }
}
