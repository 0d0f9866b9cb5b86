package dev.caravan.policies;

/**
 * Configuration of {@code bounded_consistent_hashing} (latest SGLang): consistent hashing whose explicit routing keys
 * spill over to the next ring worker when their own is overloaded.
 *
 * @param maxLoadSkew a worker is within the bound while its in-flight load is at most {@code mean * maxLoadSkew} (mean
 *                    over healthy workers); finite, &gt; 0 (below 1 only workers well under the mean take spill-over,
 *                    and when there is none the key stays put); default {@value #DEFAULT_MAX_LOAD_SKEW}
 * @param minLoadGap  the ring's worker spills only when its load exceeds the least-loaded worker's by more than this
 *                    many requests, so affinity survives at low loads where the ratio alone is noise; &gt;= 0; default
 *                    {@value #DEFAULT_MIN_LOAD_GAP}
 */
public record BoundedConsistentHashingConfig(double maxLoadSkew, int minLoadGap) implements PolicyConfig {

    public static final double DEFAULT_MAX_LOAD_SKEW = 1.5;
    public static final int DEFAULT_MIN_LOAD_GAP = 2;

    public BoundedConsistentHashingConfig {
        Checks.positiveFinite(maxLoadSkew, "maxLoadSkew", MAX_LOAD_SKEW);
        Checks.atLeast(minLoadGap, 0, "minLoadGap", MIN_LOAD_GAP);
    }

    public static BoundedConsistentHashingConfig defaults() {
        return new BoundedConsistentHashingConfig(DEFAULT_MAX_LOAD_SKEW, DEFAULT_MIN_LOAD_GAP);
    }

    static BoundedConsistentHashingConfig from(PolicyOptions o) {
        return new BoundedConsistentHashingConfig(
                o.getDouble(MAX_LOAD_SKEW, DEFAULT_MAX_LOAD_SKEW),
                o.getInt(MIN_LOAD_GAP, DEFAULT_MIN_LOAD_GAP));
    }

    @Override
    public <R> R accept(Visitor<R> visitor) {
        return visitor.visit(this);
    }

    @Override
    public String policyName() {
        return PolicyName.BOUNDED_CONSISTENT_HASHING.wireName();
    }
}
