package dev.caravan.policies.tree;

/**
 * The result of {@link ApproximateRadixTree#matchWithShared}: a prefix match and the text's shared branch point, found
 * in the same walk.
 *
 * @param match       what {@link ApproximateRadixTree#prefixMatch} answers for the text
 * @param sharedChars what {@link ApproximateRadixTree#sharedPrefixChars} answers for the text and the same parts:
 *                    code points up to the deepest shared branch point on the text's path, 0 for none
 */
public record SharedMatch(PrefixMatch match, long sharedChars) {
}
