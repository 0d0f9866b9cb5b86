package dev.caravan.policies.kv;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The KV-cache groups of one engine rank that are not full attention, each with its prefix-cache rule, and how they
 * bound the rank's hit: the engine's hit is the longest length that full attention (the index's prefix run) and every
 * group accept, a multiple of the least common multiple of the groups' block sizes, found by letting each group cut
 * the length in turn until none cuts it further (vLLM's {@code HybridKVCacheCoordinator}). Immutable.
 *
 * @param keyTokens  tokens per key block of the rank's chain (its full-attention block size)
 * @param rules      the groups' rules
 */
record GroupLayout(int keyTokens, List<GroupRule> rules) {

    /** What a group's reported {@code kv_cache_spec_kind} makes of it. */
    enum Kind {
        /** Needs the whole prefix: the index's run ({@code full_attention}, {@code mla_attention}, ...). */
        FULL,
        SLIDING_WINDOW,
        CHUNKED_LOCAL,
        MAMBA,
        /** A kind without a rule ({@code unknown}, or one this version does not know): it does not bound the hit. */
        OTHER;

        static Kind of(String reported) {
            if (reported == null) {
                return FULL;
            }
            return switch (reported.toLowerCase(Locale.ROOT)) {
                case "full_attention", "mla_attention", "sink_full_attention" -> FULL;
                case "sliding_window", "sliding_window_mla" -> SLIDING_WINDOW;
                case "chunked_local", "chunked_local_attention" -> CHUNKED_LOCAL;
                case "mamba" -> MAMBA;
                default -> OTHER;
            };
        }
    }

    GroupLayout {
        if (keyTokens < 1) {
            throw new IllegalArgumentException("keyTokens must be >= 1, was " + keyTokens);
        }
        rules = List.copyOf(rules);
        for (GroupRule r : rules) {
            if (r.blockTokens() % keyTokens != 0) {
                throw new IllegalArgumentException("group " + r.group() + "'s block of " + r.blockTokens()
                        + " tokens is not a multiple of the key block's " + keyTokens);
            }
        }
    }

    /** {@code full+} the kinds of the groups with a rule, in group order, each once: e.g. {@code full+mamba}. */
    String label() {
        StringBuilder sb = new StringBuilder("full");
        Set<String> seen = new LinkedHashSet<>();
        for (GroupRule r : rules) {
            String kind = r instanceof SlidingWindowRule ? "sliding_window"
                    : r instanceof ChunkedLocalRule ? "chunked_local" : "mamba";
            if (seen.add(kind)) {
                sb.append('+').append(kind);
            }
        }
        return sb.toString();
    }

    /** The tokens every hit is a multiple of: the least common multiple of the block sizes. */
    int align() {
        int a = keyTokens;
        for (GroupRule r : rules) {
            a = lcm(a, r.blockTokens());
        }
        return a;
    }

    /**
     * The rank's hit in key blocks.
     *
     * @param fullRun key blocks of the leading run full attention holds
     * @param limit   the longest hit the engine allows, in tokens (the prompt but its last token)
     */
    int hitBlocks(int fullRun, int limit, GroupRule.Held held) {
        int align = align();
        int full = (int) Math.min((long) fullRun * keyTokens, limit);
        int hit = full - full % align;
        int previous;
        do {
            previous = hit;
            for (GroupRule r : rules) {
                hit = Math.min(hit, r.hit(hit, align, keyTokens, held));
            }
        } while (hit != previous && hit > 0);
        return hit / keyTokens;
    }

    private static int lcm(int a, int b) {
        int x = a;
        int y = b;
        while (y != 0) {
            int t = x % y;
            x = y;
            y = t;
        }
        return a / x * b;
    }
}
