package dev.caravan.policies.tree;

/**
 * The result of {@link ApproximateRadixTree#prefixMatch}: how much of the input the tree already holds, and one tenant
 * holding it.
 *
 * @param tenant       the owner of the deepest matched node under the tree's {@link OwnerRule}, or null when the
 *                     tree has no tenant at all (SGLang's cold-start {@code "empty"})
 * @param matchedChars Unicode code points of the input found in the tree
 * @param inputChars   Unicode code points of the input
 */
public record PrefixMatch(String tenant, long matchedChars, long inputChars) {

    public boolean hasTenant() {
        return tenant != null;
    }

    /** {@code matched / input}, or 0 for an empty input: the quantity cache_aware compares with its threshold. */
    public double matchRate() {
        return inputChars == 0 ? 0.0 : (double) matchedChars / (double) inputChars;
    }

    /** The matched prefix of {@code input} (the string this match was computed for). */
    public String matchedText(String input) {
        return input.substring(0, input.offsetByCodePoints(0, (int) matchedChars));
    }
}
