package dev.caravan.processors.quality;

import dev.caravan.policies.HeldPrefixes;
import dev.caravan.policies.text.PromptTokens;

/**
 * Converts a {@link HeldPrefixes}' counts to tokens, so they compare with the engine's {@code cached_tokens}: the KV
 * index counts tokens already; a tree counts characters of the routing text, scaled by the prompt's tokens per
 * character — the engine's reported {@code prompt_tokens} when there is one, else the gateway's own prompt tokens, else
 * {@code 1 / charsPerToken}.
 */
final class TokenScale {

    private TokenScale() {
    }

    /**
     * @param reportedPromptTokens the engine's {@code prompt_tokens}, or a negative number when it reported none
     * @param gatewayTokens        the gateway's own prompt tokens (docs/tokens.md), or null
     */
    static double tokensPerUnit(HeldPrefixes held, long reportedPromptTokens, PromptTokens gatewayTokens,
                                double charsPerToken) {
        if (held.unit() == HeldPrefixes.Unit.TOKENS) {
            return 1.0;
        }
        if (held.requestSize() == 0) {
            return 0.0;
        }
        if (reportedPromptTokens > 0) {
            return (double) reportedPromptTokens / held.requestSize();
        }
        if (gatewayTokens != null && gatewayTokens.ids() != null && gatewayTokens.ids().length > 0) {
            return (double) gatewayTokens.ids().length / held.requestSize();
        }
        return 1.0 / charsPerToken;
    }
}
