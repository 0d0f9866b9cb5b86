package dev.caravan.policies;

import java.util.Map;
import java.util.Objects;

/**
 * How much of one request's prompt each candidate worker's cache held when the request was routed, as one source of
 * knowledge sees it: kv_aware's block index (what the engines reported storing, in tokens) or cache_aware's tree (what
 * the router sent where, in characters). The decision-quality metrics compare the chosen worker's share
 * ({@link #held}) and the best share ({@link #best}) with the {@code cached_tokens} the engine then reported.
 *
 * @param unit        what the counts are in
 * @param requestSize the request's size in that unit (prompt tokens, or routing-text code points)
 * @param byWorker    worker URL → leading tokens (or characters) of the request that worker held; absent = none
 * @param byWorkerFullAttention worker URL → what a source that ignored hybrid models' KV-cache groups would say it
 *                    held (kv_aware: the full-attention run), for comparison; empty when the source has no such view
 * @param layouts     worker URL → its KV-cache group layout ({@code full}, {@code full+sliding_window}, ...); absent =
 *                    {@code full}
 */
public record HeldPrefixes(Unit unit, long requestSize, Map<String, Long> byWorker,
                           Map<String, Long> byWorkerFullAttention, Map<String, String> layouts) {

    /** Tokens (the engines' own, from the KV index) or characters (an approximate tree). */
    public enum Unit { TOKENS, CHARS }

    public HeldPrefixes {
        Objects.requireNonNull(unit, "unit");
        if (requestSize < 0) {
            throw new IllegalArgumentException("requestSize must be >= 0, was " + requestSize);
        }
        byWorker = Map.copyOf(byWorker);
        byWorkerFullAttention = Map.copyOf(byWorkerFullAttention);
        layouts = Map.copyOf(layouts);
    }

    /** Held prefixes of a source without a group view. */
    public HeldPrefixes(Unit unit, long requestSize, Map<String, Long> byWorker) {
        this(unit, requestSize, byWorker, Map.of(), Map.of());
    }

    /** What the worker held by full attention alone, or -1 when the source has no such view. */
    public long heldByFullAttention(String workerUrl) {
        if (byWorkerFullAttention.isEmpty()) {
            return -1;
        }
        Long n = byWorkerFullAttention.get(workerUrl);
        return n == null ? 0 : n;
    }

    /** The worker's KV-cache group layout label. */
    public String layout(String workerUrl) {
        return layouts.getOrDefault(workerUrl, "full");
    }

    /** What this worker held, 0 when nothing. */
    public long held(String workerUrl) {
        Long n = byWorker.get(workerUrl);
        return n == null ? 0 : n;
    }

    /** The most any listed worker held: the reachable share. */
    public long best() {
        long best = 0;
        for (long n : byWorker.values()) {
            best = Math.max(best, n);
        }
        return best;
    }
}
