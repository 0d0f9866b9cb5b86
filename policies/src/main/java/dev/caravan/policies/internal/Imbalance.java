package dev.caravan.policies.internal;

/**
 * SGLang's imbalance guard, shared by the policies that fall back to the least-busy worker when the fleet is uneven
 * ({@link CacheAwarePolicy} over in-flight loads, {@link BucketPolicy} over windowed characters). Stateless.
 */
final class Imbalance {

    private Imbalance() {
    }

    /**
     * True when {@code max - min > absThreshold && max > min * relThreshold}, both strictly. The relative part is
     * computed in f32, as SGLang's config fields are f32, so boundary cases decide identically to SGLang.
     */
    static boolean imbalanced(long min, long max, long absThreshold, double relThreshold) {
        return max - min > absThreshold && (float) max > (float) min * (float) relThreshold;
    }
}
