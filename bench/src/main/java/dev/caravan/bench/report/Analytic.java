package dev.caravan.bench.report;

/**
 * Steady-state LRU hit rates under the independent reference model, by Che's approximation: a cache of capacity C
 * keeps an item iff it was referenced within the last T requests, where T solves
 * {@code Σ_t size_t · (1 − e^{−p_t T}) + g · T = C} (g = blocks each request adds that nobody reuses, each living T
 * requests); the hit rate is {@code Σ_t p_t (1 − e^{−p_t T})}. For uniform popularity and g = 0 this is exactly
 * {@code M/W}, round robin's hit rate on the b2b scenario.
 */
public final class Analytic {

    private Analytic() {
    }

    /**
     * Hit rate of one LRU cache fed by tenants with probabilities {@code p}.
     *
     * @param p              reference probabilities (summing to 1)
     * @param itemBlocks     size of one tenant's prefix, in blocks
     * @param uniqueBlocks   blocks each request adds that are never reused
     * @param capacityBlocks cache capacity in blocks
     */
    public static double lruHit(double[] p, double itemBlocks, double uniqueBlocks, double capacityBlocks) {
        if (uniqueBlocks == 0 && p.length * itemBlocks <= capacityBlocks) {
            return 1.0;
        }
        double lo = 0;
        double hi = 1;
        while (occupied(p, itemBlocks, uniqueBlocks, hi) < capacityBlocks) {
            hi *= 2;
            if (hi > 1e15) {
                return 1.0;
            }
        }
        for (int i = 0; i < 200; i++) {
            double mid = (lo + hi) / 2;
            if (occupied(p, itemBlocks, uniqueBlocks, mid) < capacityBlocks) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        double t = (lo + hi) / 2;
        double hit = 0;
        for (double pt : p) {
            hit += pt * -Math.expm1(-pt * t);
        }
        return hit;
    }

    /**
     * Hit rate when tenant {@code t} always goes to replica {@code t mod engines} (a perfectly stable, tenant-balanced
     * affinity map): each replica is its own LRU over its tenants, weighted by its share of the traffic.
     */
    public static double affinityHit(double[] p, int engines, double itemBlocks, double uniqueBlocks,
                                     double capacityBlocks) {
        double hit = 0;
        for (int r = 0; r < engines; r++) {
            int count = (p.length - r + engines - 1) / engines;
            if (count <= 0) {
                continue;
            }
            double[] q = new double[count];
            double share = 0;
            for (int i = 0; i < count; i++) {
                q[i] = p[r + i * engines];
                share += q[i];
            }
            if (share == 0) {
                continue;
            }
            for (int i = 0; i < count; i++) {
                q[i] /= share;
            }
            hit += share * lruHit(q, itemBlocks, uniqueBlocks, capacityBlocks);
        }
        return hit;
    }

    private static double occupied(double[] p, double itemBlocks, double uniqueBlocks, double t) {
        double sum = uniqueBlocks * t;
        for (double pt : p) {
            sum += itemBlocks * -Math.expm1(-pt * t);
        }
        return sum;
    }
}
