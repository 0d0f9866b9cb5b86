package dev.caravan.policies.kv;

/**
 * The prefix-cache rule of one non-full-attention KV-cache group of a hybrid model: the longest hit, in tokens, that
 * the group can serve for a request when the hit may be at most {@code limit} tokens long. The engine's hit is the
 * longest length every group accepts ({@link GroupLayout}); full attention needs every block of the prefix and is the
 * index's prefix run, so only the other kinds have a rule. The rules are vLLM's ({@code single_type_kv_cache_manager},
 * docs/design/kv-index.md, "Hybrid models").
 *
 * <p>Lengths are in tokens; a group's block {@code i} covers tokens {@code [i * blockTokens, (i + 1) * blockTokens)}
 * and is held when the group holds the request's key block that ends where it ends.
 */
interface GroupRule {

    /** Whether KV-cache group {@code group} holds the request's key block {@code keyIndex} (0-based). */
    @FunctionalInterface
    interface Held {
        boolean at(int group, int keyIndex);
    }

    /** The KV-cache group ({@code group_idx}) the rule is for. */
    int group();

    /** The group's block size in tokens. */
    int blockTokens();

    /**
     * The longest hit this group serves, at most {@code limit} tokens and a multiple of {@code align} tokens.
     *
     * @param keyTokens tokens per key block of the request's chain (divides {@link #blockTokens()})
     */
    int hit(int limit, int align, int keyTokens, Held held);

    /** Whether the group holds its block {@code i}. */
    default boolean holds(Held held, int keyTokens, int i) {
        return held.at(group(), (i + 1) * blockTokens() / keyTokens - 1);
    }
}
