package dev.caravan.policies.fleet;

/**
 * A routing text as the fleet sees it: keyed hashes of its prefixes at the boundaries {@link PrefixHasher} chooses,
 * shortest first, and the length of each prefix. The text itself is not kept.
 *
 * @param hashes     the keyed hash of each boundary's prefix (model included), ascending by length
 * @param codePoints the length of each boundary's prefix in Unicode code points (what cache_aware's rate counts)
 * @param inputCodePoints the whole text's length in code points
 */
public record RoutedPrefix(long[] hashes, int[] codePoints, int inputCodePoints) {

    public RoutedPrefix {
        if (hashes.length != codePoints.length) {
            throw new IllegalArgumentException("hashes and codePoints differ in length: " + hashes.length + " vs "
                    + codePoints.length);
        }
    }

    public int boundaries() {
        return hashes.length;
    }

    /** The index of the longest boundary no longer than {@code codePoints}, or -1 when none is. */
    public int boundaryAtMost(long length) {
        int found = -1;
        for (int i = 0; i < codePoints.length && codePoints[i] <= length; i++) {
            found = i;
        }
        return found;
    }
}
