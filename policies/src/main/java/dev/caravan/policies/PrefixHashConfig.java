package dev.caravan.policies;

/**
 * Configuration of {@code prefix_hash} (ring placement by a hash of the first tokens).
 *
 * @param prefixTokenCount  how many leading tokens are hashed; &gt;= 1; default {@value #DEFAULT_PREFIX_TOKEN_COUNT}
 * @param loadFactor        the ring's pick is kept while its in-flight load is at most
 *                          {@code (totalLoad + 1) / healthyWorkers * loadFactor}; finite, &gt; 0; default
 *                          {@value #DEFAULT_LOAD_FACTOR}
 */
public record PrefixHashConfig(int prefixTokenCount, double loadFactor) implements PolicyConfig {

    public static final int DEFAULT_PREFIX_TOKEN_COUNT = 256;
    public static final double DEFAULT_LOAD_FACTOR = 1.25;

    public PrefixHashConfig {
        Checks.atLeast(prefixTokenCount, 1, "prefixTokenCount", PREFIX_TOKEN_COUNT);
        Checks.positiveFinite(loadFactor, "loadFactor", LOAD_FACTOR);
    }

    public static PrefixHashConfig defaults() {
        return new PrefixHashConfig(DEFAULT_PREFIX_TOKEN_COUNT, DEFAULT_LOAD_FACTOR);
    }

    static PrefixHashConfig from(PolicyOptions o) {
        return new PrefixHashConfig(
                o.getInt(PREFIX_TOKEN_COUNT, DEFAULT_PREFIX_TOKEN_COUNT),
                o.getDouble(LOAD_FACTOR, DEFAULT_LOAD_FACTOR));
    }

    @Override
    public <R> R accept(Visitor<R> visitor) {
        return visitor.visit(this);
    }

    @Override
    public String policyName() {
        return PolicyName.PREFIX_HASH.wireName();
    }
}
