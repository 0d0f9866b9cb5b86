package dev.caravan.processors.tokens;

import java.time.Duration;
import java.util.Locale;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import dev.caravan.tokens.TokenChunkCache;

/**
 * The prompt-token meters (docs/tokens.md): {@code caravan_prompt_tokens_requests_total{source}} — requests by where
 * their tokens came from ({@code local}, {@code engine}, {@code request}, or {@code none}); {@code
 * caravan_prompt_tokens_engine_failures_total{reason}} — engine {@code /tokenize} calls that gave nothing
 * ({@code timeout}, {@code error}, {@code no_worker}); {@code caravan_prompt_tokens_render_errors_total} — chat
 * templates that failed to render here though the engine would not refuse (the request is routed without tokens);
 * {@code caravan_prompt_tokens_seconds{source}} — time to get the tokens; the chunk cache's
 * ({@link #bind(TokenChunkCache)}) {@code caravan_prompt_tokens_cache_chunks_total{result}} and
 * {@code caravan_prompt_tokens_cache_tokens_total{result}} ({@code hit}, {@code miss}),
 * {@code caravan_prompt_tokens_cache_evictions_total} and {@code caravan_prompt_tokens_cache_bytes}. (The engines'
 * token counts per worker,
 * {@code caravan_prompt_tokens_total{worker}}, are {@code GatewayMetrics}'s: Prometheus takes one set of labels per
 * name.)
 */
public final class TokensMetrics {

    /** Where a request's tokens came from. */
    public enum Outcome {
        LOCAL, ENGINE, REQUEST, NONE
    }

    private final Counter[] bySource = new Counter[Outcome.values().length];
    private final Timer[] timers = new Timer[Outcome.values().length];
    private final Counter timeouts;
    private final Counter errors;
    private final Counter noWorker;
    private final Counter renderErrors;
    private final MeterRegistry registry;

    public TokensMetrics(MeterRegistry registry) {
        this.registry = registry;
        for (Outcome o : Outcome.values()) {
            String tag = o.name().toLowerCase(Locale.ROOT);
            bySource[o.ordinal()] = Counter.builder("caravan_prompt_tokens_requests_total").tag("source", tag)
                    .description("Requests by where their prompt tokens came from").register(registry);
            timers[o.ordinal()] = Timer.builder("caravan_prompt_tokens_seconds").tag("source", tag)
                    .description("Time to get a request's prompt tokens").register(registry);
        }
        timeouts = failure(registry, "timeout");
        errors = failure(registry, "error");
        noWorker = failure(registry, "no_worker");
        renderErrors = Counter.builder("caravan_prompt_tokens_render_errors_total")
                .description("Chat templates that failed to render in the gateway (request routed without tokens)")
                .register(registry);
    }

    /** Registers the chunk cache's counters and its size. */
    public TokensMetrics bind(TokenChunkCache cache) {
        FunctionCounter.builder("caravan_prompt_tokens_cache_chunks_total", cache, TokenChunkCache::hits)
                .tag("result", "hit").description("Chat prompt chunks found in the chunk cache").register(registry);
        FunctionCounter.builder("caravan_prompt_tokens_cache_chunks_total", cache, TokenChunkCache::misses)
                .tag("result", "miss").description("Chat prompt chunks found in the chunk cache").register(registry);
        FunctionCounter.builder("caravan_prompt_tokens_cache_tokens_total", cache, TokenChunkCache::hitTokens)
                .tag("result", "hit").description("Chat prompt tokens taken from the chunk cache (hit) or encoded "
                        + "(miss)").register(registry);
        FunctionCounter.builder("caravan_prompt_tokens_cache_tokens_total", cache, TokenChunkCache::missTokens)
                .tag("result", "miss").description("Chat prompt tokens taken from the chunk cache (hit) or encoded "
                        + "(miss)").register(registry);
        FunctionCounter.builder("caravan_prompt_tokens_cache_evictions_total", cache, TokenChunkCache::evictions)
                .description("Chunks evicted from the chunk cache (least recently used first)").register(registry);
        Gauge.builder("caravan_prompt_tokens_cache_bytes", cache, TokenChunkCache::bytes)
                .description("Estimated heap bytes the chunk cache holds (bound: --tokens-cache-bytes)")
                .register(registry);
        return this;
    }

    private static Counter failure(MeterRegistry registry, String reason) {
        return Counter.builder("caravan_prompt_tokens_engine_failures_total").tag("reason", reason)
                .description("Engine /tokenize calls that gave no tokens").register(registry);
    }

    void record(Outcome outcome, long nanos) {
        bySource[outcome.ordinal()].increment();
        timers[outcome.ordinal()].record(Duration.ofNanos(nanos));
    }

    void engineTimeout() {
        timeouts.increment();
    }

    void engineError() {
        errors.increment();
    }

    void noWorker() {
        noWorker.increment();
    }

    void renderError() {
        renderErrors.increment();
    }

    /** Requests whose tokens came from {@code outcome} so far. */
    public double count(Outcome outcome) {
        return bySource[outcome.ordinal()].count();
    }
}
