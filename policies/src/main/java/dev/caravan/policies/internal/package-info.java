/**
 * The policy implementations, one per file. Not API: build policies with {@link dev.caravan.policies.PolicyFactory} and
 * reach optional capabilities through the small interfaces in {@code dev.caravan.policies}
 * ({@link dev.caravan.policies.Maintainable}, {@link dev.caravan.policies.TreeBacked}).
 */
package dev.caravan.policies.internal;
