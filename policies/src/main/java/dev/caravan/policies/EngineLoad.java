package dev.caravan.policies;

/**
 * What an engine last reported about its own load, as polled by the gateway's load monitor from {@code /get_load} and
 * {@code /metrics}. This is the engine's queue, which the router's in-flight count is not (the design document's sharp
 * edge 4).
 *
 * @param tokens          summed {@code num_tokens} from {@code /get_load}; {@code -1} when the engine did not report it
 * @param running         requests the engine is running ({@code vllm:num_requests_running}); {@code -1} if unknown
 * @param waiting         requests queued inside the engine ({@code vllm:num_requests_waiting}); {@code -1} if unknown
 * @param kvUsage         fraction of the KV pool in use, 0..1 ({@code vllm:kv_cache_usage_perc}); {@code -1} if unknown
 * @param polledAtNanos   monotonic time ({@link System#nanoTime()} scale, or the injected clock's) of the poll
 */
public record EngineLoad(long tokens, int running, int waiting, double kvUsage, long polledAtNanos) {

    /** True when the engine reported a token load, the quantity power_of_two compares. */
    public boolean hasTokens() {
        return tokens >= 0;
    }
}
