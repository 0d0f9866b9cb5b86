package dev.caravan.policies.kv;

import java.util.Map;

/**
 * The result of {@link KvBlockIndex#longestPrefixes}: per worker, how much of the request's leading blocks its best
 * engine rank holds consecutively (block 0, 1, ... up to the first block no tier of that rank holds).
 *
 * @param requestBlocks the number of full blocks in the request
 * @param matched       worker id → its best rank's match; workers holding no leading block are absent
 */
public record PrefixMatches(int requestBlocks, Map<String, Match> matched) {

    /**
     * One worker's best rank.
     *
     * @param rank      the data-parallel rank holding the longest weighted prefix (ties: the lower rank)
     * @param blocks    consecutive leading blocks that rank holds on any tier
     * @param gpuBlocks consecutive leading blocks it holds on the GPU (what the engine will not store again)
     * @param score     {@code blocks} weighted by tier: 1 per GPU block, the CPU and disk weights for the others
     * @param runBlocks the leading run before a hybrid model's groups cut it ({@code blocks} for other models): what
     *                  a router that knew only full attention would expect
     */
    public record Match(int rank, int blocks, int gpuBlocks, double score, int runBlocks) {

        /** A match that no KV-cache group rule cut. */
        public Match(int rank, int blocks, int gpuBlocks, double score) {
            this(rank, blocks, gpuBlocks, score, blocks);
        }
    }

    public PrefixMatches {
        matched = Map.copyOf(matched);
    }

    public static PrefixMatches none(int requestBlocks) {
        return new PrefixMatches(requestBlocks, Map.of());
    }

    /** Consecutive leading blocks the worker holds on any tier, 0 when none. */
    public int matched(String workerId) {
        Match m = matched.get(workerId);
        return m == null ? 0 : m.blocks();
    }

    /** {@link Match#runBlocks()} of the worker's best rank, 0 when none. */
    public int runBlocks(String workerId) {
        Match m = matched.get(workerId);
        return m == null ? 0 : m.runBlocks();
    }

    /** The worker's tier-weighted match, 0 when none. */
    public double score(String workerId) {
        Match m = matched.get(workerId);
        return m == null ? 0 : m.score();
    }

    /** The worker's best match, or null. */
    public Match match(String workerId) {
        return matched.get(workerId);
    }
}
