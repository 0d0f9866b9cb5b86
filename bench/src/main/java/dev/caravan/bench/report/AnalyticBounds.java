package dev.caravan.bench.report;

/**
 * Steady-state hit rates of a tenant workload by the analytic model, next to which the measured figures are shown.
 *
 * <p>{@code roundRobinHit} and {@code affinityHit} are the model: each replica holds an LRU set of
 * {@code prefixesPerReplica} prefixes; round-robin shows every replica the whole tenant mix, perfect affinity (tenant
 * {@code t} on replica {@code t mod N}) only its own tenants. For uniform popularity they are exactly {@code M/W} and
 * {@code min(1, MN/W)}; for skewed popularity they are Che's approximation of LRU under the same model.
 * The {@code ...Lru} variants also count what the simulated engine really keeps in the same pool: each request's
 * unique blocks (the rest of its prompt and its output) enter the LRU too and push prefixes out.
 *
 * @param prefixesPerReplica       M, prefixes one replica's cache holds
 * @param tenants                  W, distinct prefixes
 * @param engines                  N
 * @param prefixTokens             L_p
 * @param rate                     requests per simulated second
 * @param prefillSecondsPerPrefix  t_prefill of the prefix: L_p / prefill rate (the simulator's fixed per-prefill
 *                                 overhead is left out because a hit pays it too)
 * @param roundRobinHit            H_rr
 * @param affinityHit              H_aff
 * @param roundRobinHitLru         H_rr with the unique blocks in the LRU
 * @param affinityHitLru           H_aff with the unique blocks in the LRU
 * @param uniqueBlocksPerRequest   KV blocks per request that no other request shares
 */
public record AnalyticBounds(int prefixesPerReplica, int tenants, int engines, int prefixTokens, double rate,
                             double prefillSecondsPerPrefix, double roundRobinHit, double affinityHit,
                             double roundRobinHitLru, double affinityHitLru, int uniqueBlocksPerRequest) {

    /** G_waste = rate × (1 − H) × t_prefill, GPU-seconds of prefix prefill repeated per simulated second. */
    public double gWaste(double hit) {
        return rate * (1 - hit) * prefillSecondsPerPrefix;
    }
}
