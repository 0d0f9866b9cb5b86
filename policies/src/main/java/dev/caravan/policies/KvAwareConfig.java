package dev.caravan.policies;

import java.util.Locale;

import dev.caravan.policies.text.PseudoTokenizer;
import dev.caravan.policies.text.TokenizerSource;

/**
 * Configuration of the precise {@code kv_aware} policy ({@code dev.caravan.policies.kv.KvAwarePolicy}): how the router
 * turns a request into tokens, and how it weighs cached blocks against load (docs/design/kv-index.md). Block keys are
 * Caravan's own hash of token ids, so nothing here has to match the engines' hash algorithm or seed; the tokens must
 * match the engine's (the parity self-check reports when they do not).
 *
 * @param tokenizer           {@value TokenizerSource#PSEUDO} (the simulator's pseudo-tokenizer) or the path of the
 *                            model's HuggingFace {@code tokenizer.json}; default {@value #DEFAULT_TOKENIZER}
 * @param charsPerToken       code points per token of the pseudo-tokenizer (the simulator's {@code --chars-per-token});
 *                            in [{@value #MIN_CHARS_PER_TOKEN},{@value #MAX_CHARS_PER_TOKEN}]; default
 *                            {@value #DEFAULT_CHARS_PER_TOKEN}
 * @param blockSize           tokens per block assumed for a worker whose engine has not yet reported its own (every
 *                            {@code BlockStored} does); in [{@value #MIN_BLOCK_SIZE},{@value #MAX_BLOCK_SIZE}];
 *                            default {@value #DEFAULT_BLOCK_SIZE}
 * @param overlapWeight       weight of the request's uncached prefill blocks against the worker's active blocks
 *                            (Dynamo's {@code --kv-overlap-score-weight}, whose default is 1); 0 ignores the cache;
 *                            finite, &gt;= 0; default {@value #DEFAULT_OVERLAP_WEIGHT}, measured on b2b
 *                            (docs/benchmarks.md)
 * @param balanceAbsThreshold imbalance guard, absolute part: in-flight max − min must exceed this; &gt;= 0; default
 *                            {@value #DEFAULT_BALANCE_ABS_THRESHOLD} (SGLang's launcher default)
 * @param balanceRelThreshold imbalance guard, relative part: max must exceed min × this; finite, &gt;= 1; default
 *                            {@value #DEFAULT_BALANCE_REL_THRESHOLD}
 * @param decodeLoadSource    where a worker's active blocks come from; default ROUTER
 * @param cpuWeight           prefill a block held in host memory saves, as a fraction of a GPU-resident block's; in
 *                            [0,1]; default {@value #DEFAULT_CPU_WEIGHT} (llm-d's)
 * @param diskWeight          the same for storage; in [0,1]; default {@value #DEFAULT_DISK_WEIGHT} (llm-d's)
 * @param temperature         0: the lowest cost wins (ties: fewer resident blocks, then random); &gt; 0: a worker is
 *                            drawn with probability ∝ exp(−normalised cost / temperature) (Dynamo's
 *                            {@code --router-temperature}); finite, &gt;= 0; default {@value #DEFAULT_TEMPERATURE}
 * @param discountSharedPrefix matched blocks count only beyond the request's shared branch point: a prefix at least
 *                            1/N of the routed requests pass through and go on from in more than one way (N the
 *                            candidate engine ranks) saves nothing in the cost, so a hot tenant's requests and new
 *                            conversations after a common preamble choose by load; default
 *                            {@value #DEFAULT_DISCOUNT_SHARED_PREFIX} (docs/kv-events.md)
 * @param stateAffinity       on a hybrid model's rank, the blocks full attention holds beyond what every KV-cache group
 *                            serves count this much (in [0,1]) against the prefill cost: their prefill is not saved,
 *                            but the rank already holds the prefix and keeps a state where the request ends, so the
 *                            prefix's requests stay together instead of being copied to every engine; default
 *                            {@value #DEFAULT_STATE_AFFINITY}
 */
public record KvAwareConfig(String tokenizer, int charsPerToken, int blockSize, double overlapWeight,
                            int balanceAbsThreshold, double balanceRelThreshold, DecodeLoadSource decodeLoadSource,
                            double cpuWeight, double diskWeight, double temperature, boolean discountSharedPrefix,
                            double stateAffinity)
        implements PolicyConfig {

    public static final String DEFAULT_TOKENIZER = TokenizerSource.PSEUDO;
    /**
     * Half credit: a b2b fleet of Mamba-hybrid engines kept its tenants on their engines (and its hit rate) with it,
     * and lost both at 0 (docs/benchmarks.md, "Hybrid models").
     */
    public static final double DEFAULT_STATE_AFFINITY = 0.5;
    public static final int DEFAULT_CHARS_PER_TOKEN = PseudoTokenizer.DEFAULT_CHARS_PER_TOKEN;
    /** vLLM's default block size, in tokens. */
    public static final int DEFAULT_BLOCK_SIZE = 16;
    /** Accepted for old command lines ({@code --kv-hash-seed}); block keys do not depend on the engines' seed. */
    public static final String DEFAULT_HASH_SEED = "0";
    public static final double DEFAULT_OVERLAP_WEIGHT = 32.0;
    public static final int DEFAULT_BALANCE_ABS_THRESHOLD = 64;
    public static final double DEFAULT_BALANCE_REL_THRESHOLD = 1.5;
    public static final DecodeLoadSource DEFAULT_DECODE_LOAD_SOURCE = DecodeLoadSource.ROUTER;
    public static final double DEFAULT_CPU_WEIGHT = 0.8;
    public static final double DEFAULT_DISK_WEIGHT = 0.3;
    public static final double DEFAULT_TEMPERATURE = 0.0;
    public static final boolean DEFAULT_DISCOUNT_SHARED_PREFIX = true;
    /** Bounds of {@code charsPerToken}; the gateway's {@code --kv-chars-per-token} row states the same range. */
    public static final int MIN_CHARS_PER_TOKEN = 1;
    public static final int MAX_CHARS_PER_TOKEN = 64;
    /** Bounds of {@code blockSize}; the gateway's {@code --kv-block-size} row states the same range. */
    public static final int MIN_BLOCK_SIZE = 1;
    public static final int MAX_BLOCK_SIZE = 4096;

    /** How {@code kv_aware} counts a worker's active (decode) blocks. */
    public enum DecodeLoadSource {
        /**
         * The router's view: the distinct blocks of the requests this gateway has in flight on the engine rank (shared
         * prefixes once), plus the request's own blocks it does not share (Dynamo's {@code potential_blocks}).
         * Current to the request, blind to other gateways' traffic.
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
        Checks.inUnitInterval(cpuWeight, "cpuWeight", KV_CPU_WEIGHT);
        Checks.inUnitInterval(diskWeight, "diskWeight", KV_DISK_WEIGHT);
        Checks.nonNegativeFinite(temperature, "temperature", KV_ROUTER_TEMPERATURE);
        Checks.inUnitInterval(stateAffinity, "stateAffinity", KV_STATE_AFFINITY);
    }

    /** A configuration with the default {@link #DEFAULT_STATE_AFFINITY}. */
    public KvAwareConfig(String tokenizer, int charsPerToken, int blockSize, double overlapWeight,
                         int balanceAbsThreshold, double balanceRelThreshold, DecodeLoadSource decodeLoadSource,
                         double cpuWeight, double diskWeight, double temperature, boolean discountSharedPrefix) {
        this(tokenizer, charsPerToken, blockSize, overlapWeight, balanceAbsThreshold, balanceRelThreshold,
                decodeLoadSource, cpuWeight, diskWeight, temperature, discountSharedPrefix, DEFAULT_STATE_AFFINITY);
    }

    public KvAwareConfig withStateAffinity(double v) {
        return new KvAwareConfig(tokenizer, charsPerToken, blockSize, overlapWeight, balanceAbsThreshold,
                balanceRelThreshold, decodeLoadSource, cpuWeight, diskWeight, temperature, discountSharedPrefix, v);
    }

    public static KvAwareConfig defaults() {
        return new KvAwareConfig(DEFAULT_TOKENIZER, DEFAULT_CHARS_PER_TOKEN, DEFAULT_BLOCK_SIZE, DEFAULT_OVERLAP_WEIGHT,
                DEFAULT_BALANCE_ABS_THRESHOLD, DEFAULT_BALANCE_REL_THRESHOLD, DEFAULT_DECODE_LOAD_SOURCE,
                DEFAULT_CPU_WEIGHT, DEFAULT_DISK_WEIGHT, DEFAULT_TEMPERATURE, DEFAULT_DISCOUNT_SHARED_PREFIX,
                DEFAULT_STATE_AFFINITY);
    }

    /** From policy options; {@code kv-hash-seed} is accepted and ignored (keys do not depend on it). */
    static KvAwareConfig from(PolicyOptions o) {
        return new KvAwareConfig(
                o.getString(KV_TOKENIZER, DEFAULT_TOKENIZER),
                o.getInt(KV_CHARS_PER_TOKEN, DEFAULT_CHARS_PER_TOKEN),
                o.getInt(KV_BLOCK_SIZE, DEFAULT_BLOCK_SIZE),
                o.getDouble(KV_OVERLAP_WEIGHT, DEFAULT_OVERLAP_WEIGHT),
                o.getInt(BALANCE_ABS_THRESHOLD, DEFAULT_BALANCE_ABS_THRESHOLD),
                o.getDouble(BALANCE_REL_THRESHOLD, DEFAULT_BALANCE_REL_THRESHOLD),
                DecodeLoadSource.parse(o.getString(KV_DECODE_LOAD_SOURCE, DEFAULT_DECODE_LOAD_SOURCE.name())),
                o.getDouble(KV_CPU_WEIGHT, DEFAULT_CPU_WEIGHT),
                o.getDouble(KV_DISK_WEIGHT, DEFAULT_DISK_WEIGHT),
                o.getDouble(KV_ROUTER_TEMPERATURE, DEFAULT_TEMPERATURE),
                o.getBoolean(KV_DISCOUNT_SHARED_PREFIX, DEFAULT_DISCOUNT_SHARED_PREFIX),
                o.getDouble(KV_STATE_AFFINITY, DEFAULT_STATE_AFFINITY));
    }

    public KvAwareConfig withTokenizer(String v) {
        return new KvAwareConfig(v, charsPerToken, blockSize, overlapWeight, balanceAbsThreshold, balanceRelThreshold,
                decodeLoadSource, cpuWeight, diskWeight, temperature, discountSharedPrefix, stateAffinity);
    }

    public KvAwareConfig withBlockSize(int v) {
        return new KvAwareConfig(tokenizer, charsPerToken, v, overlapWeight, balanceAbsThreshold, balanceRelThreshold,
                decodeLoadSource, cpuWeight, diskWeight, temperature, discountSharedPrefix, stateAffinity);
    }

    public KvAwareConfig withOverlapWeight(double v) {
        return new KvAwareConfig(tokenizer, charsPerToken, blockSize, v, balanceAbsThreshold, balanceRelThreshold,
                decodeLoadSource, cpuWeight, diskWeight, temperature, discountSharedPrefix, stateAffinity);
    }

    public KvAwareConfig withBalance(int abs, double rel) {
        return new KvAwareConfig(tokenizer, charsPerToken, blockSize, overlapWeight, abs, rel, decodeLoadSource,
                cpuWeight, diskWeight, temperature, discountSharedPrefix, stateAffinity);
    }

    public KvAwareConfig withDecodeLoadSource(DecodeLoadSource v) {
        return new KvAwareConfig(tokenizer, charsPerToken, blockSize, overlapWeight, balanceAbsThreshold,
                balanceRelThreshold, v, cpuWeight, diskWeight, temperature, discountSharedPrefix, stateAffinity);
    }

    public KvAwareConfig withTierWeights(double cpu, double disk) {
        return new KvAwareConfig(tokenizer, charsPerToken, blockSize, overlapWeight, balanceAbsThreshold,
                balanceRelThreshold, decodeLoadSource, cpu, disk, temperature, discountSharedPrefix, stateAffinity);
    }

    public KvAwareConfig withTemperature(double v) {
        return new KvAwareConfig(tokenizer, charsPerToken, blockSize, overlapWeight, balanceAbsThreshold,
                balanceRelThreshold, decodeLoadSource, cpuWeight, diskWeight, v, discountSharedPrefix, stateAffinity);
    }

    public KvAwareConfig withDiscountSharedPrefix(boolean v) {
        return new KvAwareConfig(tokenizer, charsPerToken, blockSize, overlapWeight, balanceAbsThreshold,
                balanceRelThreshold, decodeLoadSource, cpuWeight, diskWeight, temperature, v, stateAffinity);
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
