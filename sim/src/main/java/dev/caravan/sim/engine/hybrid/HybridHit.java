package dev.caravan.sim.engine.hybrid;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntPredicate;

/**
 * The prefix hit of a new request across every KV-cache group, as vLLM's hybrid KV-cache coordinator finds it: the
 * full-attention groups first (their run from block 0 bounds the rest), then each other group in group order is asked
 * for its longest hit within the current candidate, which can only shrink; the rounds repeat until a whole round
 * leaves the candidate unchanged. Every group's rule answers "the longest hit I can serve up to L", so the result is
 * the longest length all groups can serve. With one full-attention group and one other group a single round is
 * enough. Every group must use the same block size (vLLM aligns hits to the least common multiple of the group block
 * sizes; with equal sizes that is the block).
 */
public final class HybridHit {

    private HybridHit() {
    }

    /**
     * @param rules     the groups' rules, in group order
     * @param held      per group, whether it holds block i cached
     * @param maxLength the longest hit allowed, tokens (a new request's prompt length - 1)
     * @return the hit length in tokens, a multiple of the block size
     */
    public static int longest(List<GroupRule> rules, List<IntPredicate> held, int maxLength) {
        if (rules.isEmpty() || rules.size() != held.size()) {
            throw new IllegalArgumentException(rules.size() + " rules for " + held.size() + " holdings");
        }
        int bs = rules.get(0).blockSize();
        for (GroupRule r : rules) {
            if (r.blockSize() != bs) {
                throw new IllegalArgumentException("groups must share one block size, got " + bs + " and "
                        + r.blockSize());
            }
        }
        List<Integer> order = new ArrayList<>();
        for (int g = 0; g < rules.size(); g++) {
            if (rules.get(g).isFullAttention()) {
                order.add(g);
            }
        }
        for (int g = 0; g < rules.size(); g++) {
            if (!rules.get(g).isFullAttention()) {
                order.add(g);
            }
        }
        int hit = Math.max(0, maxLength) / bs * bs;
        while (true) {
            int candidate = hit;
            for (int g : order) {
                candidate = Math.min(candidate, rules.get(g).longestHit(held.get(g), candidate));
            }
            if (candidate >= hit) {
                return hit;
            }
            hit = candidate;
        }
    }
}
