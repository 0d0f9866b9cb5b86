package dev.caravan.processors.quality;

import static dev.caravan.processors.CaravanExchangeProperties.DECISION;
import static dev.caravan.processors.CaravanExchangeProperties.PROMPT_TOKENS;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.camel.Exchange;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.caravan.policies.Decision;
import dev.caravan.policies.HeldPrefixes;
import dev.caravan.processors.forward.Usage;

/**
 * Decision-quality metrics ({@code --decision-quality}), per policy (label {@code policy}, the policy's name):
 * <ul>
 *   <li>{@code caravan_decision_expected_tokens_total}: what the chosen worker held of the request by the policy's
 *       ground truth when it was routed (kv_aware: the KV index's consecutive leading blocks × block size, at most
 *       the prompt but its last token, which engines always compute;
 *       cache_aware: its tree's match, characters converted to tokens, {@link TokenScale});</li>
 *   <li>{@code caravan_decision_reachable_tokens_total}: the most any healthy candidate held, same source;</li>
 *   <li>{@code caravan_decision_captured_tokens_total}: the engine's {@code cached_tokens} (usage
 *       {@code prompt_tokens_details.cached_tokens} or SGLang's {@code meta_info.cached_tokens}, streaming too);</li>
 *   <li>{@code caravan_decision_requests_total{policy,reported}}: requests measured, by whether the engine reported
 *       {@code cached_tokens};</li>
 *   <li>{@code caravan_decision_predictions_total{policy,layout,rules,outcome}}: reporting requests by whether the
 *       expected tokens were {@code exact}, {@code over} or {@code under} the engine's {@code cached_tokens}, per KV-cache
 *       group layout, for the policy's own expectation ({@code rules=groups}) and, from kv_aware's index, the one
 *       that ignores hybrid models' groups ({@code rules=full_attention});</li>
 *   <li>{@code caravan_decision_capture_ratio}: captured ÷ reachable over the last {@code window} reporting
 *       requests; a warning is logged (at most once per {@code warnInterval}) while it is below {@code warnBelow}.</li>
 * </ul>
 * Expected and reachable are counted for every measured request (they need no engine report); captured only for
 * requests whose engine reported it. Thread-safe.
 */
public final class DecisionQuality {

    private static final Logger LOG = LoggerFactory.getLogger(DecisionQuality.class);

    private final MeterRegistry registry;
    private final DecisionQualityConfig config;
    private final LongSupplier nanoClock;
    private final Map<String, PolicyMeters> byPolicy = new ConcurrentHashMap<>();

    private record PolicyMeters(Counter expected, Counter reachable, Counter captured, Counter reported,
                                Counter unreported, CaptureWindow window) {
    }

    public DecisionQuality(MeterRegistry registry, DecisionQualityConfig config, LongSupplier nanoClock) {
        this.registry = registry;
        this.config = config;
        this.nanoClock = nanoClock;
    }

    /** The exchange's decision, what was held when it was made, and the engine's report. */
    void record(Exchange exchange) {
        Decision d = DECISION.get(exchange);
        HeldPrefixes held = MeasurePrefixesProcessor.HELD.get(exchange);
        if (d == null || d.isEmpty() || held == null) {
            return;
        }
        Usage usage = Usage.PROPERTY.get(exchange, Usage.NONE);
        double scale = TokenScale.tokensPerUnit(held, usage.promptTokens(), PROMPT_TOKENS.get(exchange),
                config.charsPerToken());
        String url = d.worker().url();
        long expected = Math.round(held.held(url) * scale);
        record(d.policy(), expected, Math.round(held.best() * scale), usage.cachedTokens());
        if (usage.cachedTokens() >= 0) {
            String layout = held.layout(url);
            predicted(d.policy(), layout, "groups", expected, usage.cachedTokens());
            long fullAttention = held.heldByFullAttention(url);
            if (fullAttention >= 0) {
                predicted(d.policy(), layout, "full_attention", Math.round(fullAttention * scale),
                        usage.cachedTokens());
            }
        }
    }

    /**
     * Counts how the expected cached tokens compared with what the engine reported: {@code exact}, {@code over} (the
     * router expected more) or {@code under}, per the worker's KV-cache group layout and per the rules the
     * expectation used ({@code groups}: the policy's own; {@code full_attention}: the same index read as if every
     * group were full attention, what a router that ignores hybrid models' groups expects).
     */
    void predicted(String policy, String layout, String rules, long expected, long captured) {
        String outcome = expected == captured ? "exact" : expected > captured ? "over" : "under";
        Counter.builder("caravan.decision.predictions")
                .description("Routed requests by how the expected cached tokens compared with the engine's report")
                .tags("policy", policy, "layout", layout, "rules", rules, "outcome", outcome)
                .register(registry).increment();
    }

    /**
     * Records one routed request, in tokens.
     *
     * @param captured the engine's {@code cached_tokens}, negative when it did not report them
     */
    public void record(String policy, long expected, long reachable, long captured) {
        PolicyMeters m = byPolicy.computeIfAbsent(policy, this::meters);
        m.expected().increment(expected);
        m.reachable().increment(reachable);
        if (captured < 0) {
            m.unreported().increment();
            return;
        }
        m.reported().increment();
        m.captured().increment(captured);
        double low = m.window().add(captured, reachable);
        if (!Double.isNaN(low)) {
            LOG.warn("Decision quality of {}: the engines served {}% of the reachable prefix tokens from cache over the "
                    + "last {} requests (below {}%). The policy misses prefixes the fleet holds: check its tree budget "
                    + "(--max-tree-size), KV events, and the kv_aware parity self-check.", policy,
                    Math.round(low * 100), config.window(), Math.round(config.warnBelow() * 100));
        }
    }

    /** Captured ÷ reachable over the policy's window; NaN before anything reachable was reported. */
    public double captureRatio(String policy) {
        PolicyMeters m = byPolicy.get(policy);
        return m == null ? Double.NaN : m.window().ratio();
    }

    private PolicyMeters meters(String policy) {
        CaptureWindow window = new CaptureWindow(config.window(), config.warnBelow(), config.warnInterval().toNanos(),
                nanoClock);
        Gauge.builder("caravan.decision.capture.ratio", window, CaptureWindow::ratio)
                .description("Captured / reachable prefix tokens over the policy's recent reporting requests")
                .tag("policy", policy).register(registry);
        return new PolicyMeters(
                counter("caravan.decision.expected.tokens", "Prompt tokens the chosen worker held when routed", policy),
                counter("caravan.decision.reachable.tokens", "Prompt tokens the best healthy worker held when routed",
                        policy),
                counter("caravan.decision.captured.tokens", "Prompt tokens the engines reported cached (cached_tokens)",
                        policy),
                Counter.builder("caravan.decision.requests").description("Requests measured for decision quality")
                        .tags("policy", policy, "reported", "true").register(registry),
                Counter.builder("caravan.decision.requests").description("Requests measured for decision quality")
                        .tags("policy", policy, "reported", "false").register(registry),
                window);
    }

    private Counter counter(String name, String description, String policy) {
        return Counter.builder(name).description(description).tag("policy", policy).register(registry);
    }
}
