package dev.caravan.policies;

import java.time.Duration;

/**
 * What an engine last reported about its own load, as polled by the gateway's load monitor from {@code /get_load} and
 * {@code /metrics}. This is the engine's queue, which the router's in-flight count is not: an engine loaded by other
 * gateways or by long prefills has few requests in flight from this one.
 *
 * @param tokens          summed {@code num_tokens} from {@code /get_load}; {@code -1} when the engine did not report it
 * @param running         requests the engine is running ({@code vllm:num_requests_running}); {@code -1} if unknown
 * @param waiting         requests queued inside the engine ({@code vllm:num_requests_waiting}); {@code -1} if unknown
 * @param kvUsage         fraction of the KV pool in use, 0..1 ({@code vllm:kv_cache_usage_perc}); {@code -1} if unknown
 * @param polledAtNanos   monotonic time ({@link System#nanoTime()} scale, or the injected clock's) of the poll
 */
public record EngineLoad(long tokens, int running, int waiting, double kvUsage, long polledAtNanos) {

    /**
     * The requests the engine holds, running plus waiting (an unknown part counts 0), or {@code -1} when it reported
     * neither. Comparable with {@link Worker#load()}, which counts only this gateway's requests.
     */
    public int queued() {
        if (running < 0 && waiting < 0) {
            return -1;
        }
        return Math.max(running, 0) + Math.max(waiting, 0);
    }

    /**
     * Whether the poll is recent enough to act on: at most {@code maxAge} before {@code nowNanos} (same clock as
     * {@link #polledAtNanos}). A zero {@code maxAge} trusts nothing. The gateway keeps a worker's last value when a poll
     * fails, so without this check a dead engine's last queue would count for ever.
     */
    public boolean isFresh(long nowNanos, Duration maxAge) {
        return !maxAge.isZero() && nowNanos - polledAtNanos <= maxAge.toNanos();
    }

    /** True when the engine reported a token load, the quantity power_of_two compares. */
    public boolean hasTokens() {
        return tokens >= 0;
    }
}
