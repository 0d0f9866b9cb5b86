package dev.caravan.processors.forward;

import dev.caravan.processors.ExchangeProperty;

/**
 * Told how many output tokens a response has carried so far, while it is relayed to the client: the tenant rate limit
 * ({@code limitTenantRate}) charges a stream's output as it flows instead of only when it ends. The relays
 * ({@link StreamRelay}, the P/D decode relay) call it from the response's event loop with the running estimate of their
 * {@link UsageSniffer} after each chunk; the value only grows within one response. Settling against {@code usage} is the
 * meter owner's business, when the exchange completes.
 */
@FunctionalInterface
public interface OutputMeter {

    /** Set by the step that meters the exchange's output; absent when nobody does (no per-chunk work then). */
    ExchangeProperty<OutputMeter> PROPERTY = ExchangeProperty.of("caravanOutputMeter", OutputMeter.class);

    /** The response's output tokens so far (an estimate while it streams; cumulative, not a delta). */
    void outputSoFar(long tokens);
}
