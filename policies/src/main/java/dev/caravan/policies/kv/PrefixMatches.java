package dev.caravan.policies.kv;

import java.util.Map;

/**
 * The result of {@link KvBlockIndex#longestPrefixes}: per worker, how many of the request's leading blocks it holds
 * consecutively (block 0, 1, ... up to its first missing block).
 *
 * @param requestBlocks the number of full blocks in the request
 * @param matched       worker id → consecutive leading blocks resident; workers holding none are absent
 */
public record PrefixMatches(int requestBlocks, Map<String, Integer> matched) {

    public PrefixMatches {
        matched = Map.copyOf(matched);
    }

    public static PrefixMatches none(int requestBlocks) {
        return new PrefixMatches(requestBlocks, Map.of());
    }

    /** Consecutive leading blocks the worker holds, 0 when none. */
    public int matched(String workerId) {
        return matched.getOrDefault(workerId, 0);
    }
}
