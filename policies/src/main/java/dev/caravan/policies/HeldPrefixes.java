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
 */
public record HeldPrefixes(Unit unit, long requestSize, Map<String, Long> byWorker) {

    /** Tokens (the engines' own, from the KV index) or characters (an approximate tree). */
    public enum Unit { TOKENS, CHARS }

    public HeldPrefixes {
        Objects.requireNonNull(unit, "unit");
        if (requestSize < 0) {
            throw new IllegalArgumentException("requestSize must be >= 0, was " + requestSize);
        }
        byWorker = Map.copyOf(byWorker);
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
