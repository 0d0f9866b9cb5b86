package dev.caravan.processors.quality;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Meters of the shadow policies, per shadow (label {@code shadow}, its configured name):
 * <ul>
 *   <li>{@code caravan_shadow_decisions_total{shadow,agrees}}: requests the shadow chose for, by whether it chose the
 *       worker the live policy chose;</li>
 *   <li>{@code caravan_shadow_expected_tokens_total{shadow}}: what the shadow's pick held of the request, by the
 *       gateway's source of what engines hold ({@link PrefixOracle});</li>
 *   <li>{@code caravan_shadow_baseline_tokens_total{shadow}}: what the live policy's pick held, on the same requests;</li>
 *   <li>{@code caravan_shadow_reachable_tokens_total{shadow}}: the most any healthy worker held, on the same requests.</li>
 * </ul>
 * Thread-safe.
 */
final class ShadowMetrics {

    private final MeterRegistry registry;
    private final Map<String, Meters> byShadow = new ConcurrentHashMap<>();

    private record Meters(Counter agrees, Counter differs, Counter expected, Counter baseline, Counter reachable) {
    }

    ShadowMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    void decided(String shadow, boolean agrees) {
        Meters m = meters(shadow);
        (agrees ? m.agrees() : m.differs()).increment();
    }

    void scored(String shadow, long expected, long baseline, long reachable) {
        Meters m = meters(shadow);
        m.expected().increment(expected);
        m.baseline().increment(baseline);
        m.reachable().increment(reachable);
    }

    private Meters meters(String shadow) {
        return byShadow.computeIfAbsent(shadow, s -> new Meters(
                Counter.builder("caravan.shadow.decisions").description("Shadow policy decisions, by agreement")
                        .tags("shadow", s, "agrees", "true").register(registry),
                Counter.builder("caravan.shadow.decisions").description("Shadow policy decisions, by agreement")
                        .tags("shadow", s, "agrees", "false").register(registry),
                counter("caravan.shadow.expected.tokens", "Prompt tokens the shadow's pick held", s),
                counter("caravan.shadow.baseline.tokens", "Prompt tokens the live policy's pick held", s),
                counter("caravan.shadow.reachable.tokens", "Prompt tokens the best healthy worker held", s)));
    }

    private Counter counter(String name, String description, String shadow) {
        return Counter.builder(name).description(description).tag("shadow", shadow).register(registry);
    }
}
