package dev.caravan.policies.tree;

import java.util.Locale;

/**
 * Which tenant a prefix match reports for a node that several tenants hold (a shared prefix): the question
 * {@link ApproximateRadixTree#prefixMatch} answers when it picks one tenant of the deepest matched node.
 *
 * <p>Only the reported tenant differs between the rules; what each tenant holds, its counts and the LRU stamps are the
 * same under both.
 */
public enum OwnerRule {

    /**
     * SGLang's rule (smg 0.3.2; docs/design/upstream.md, "SGLang: cache_aware"): a node's owner, its
     * {@code last_tenant} (PR 16099), is set when the node is created (the tenant that inserted it) or inherited on a
     * split, and an insert that walks through an existing node leaves it alone (PR 16097). Once the owner leaves the
     * node (eviction, removal), the earliest tenant still on it takes over. The root never records an owner, so a
     * match that reaches no node reports the earliest registered tenant still present. The default.
     */
    FIRST,

    /**
     * Every insert makes its tenant the owner of the root and of every node on its path,
     * so a shared prefix reports the worker that last received it. An option ({@code --shared-prefix-owner latest}).
     */
    LATEST;

    /** The rule's option value: {@code first} or {@code latest}. */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Parses an option value, case-insensitively. */
    public static OwnerRule fromWireName(String value) {
        for (OwnerRule r : values()) {
            if (r.wireName().equalsIgnoreCase(value.trim())) {
                return r;
            }
        }
        throw new IllegalArgumentException("must be first or latest, was '" + value + "'");
    }
}
