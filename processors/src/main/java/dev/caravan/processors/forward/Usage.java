package dev.caravan.processors.forward;

import dev.caravan.processors.ExchangeProperty;

/**
 * Token counts an engine reported for one request: OpenAI's {@code usage} ({@code prompt_tokens},
 * {@code prompt_tokens_details.cached_tokens}, {@code completion_tokens}) or SGLang's {@code meta_info}
 * ({@code prompt_tokens}, {@code cached_tokens}, {@code completion_tokens}). {@code -1} means "not reported".
 *
 * @param promptTokens     tokens in the prompt
 * @param cachedTokens     prompt tokens served from the engine's prefix cache
 * @param completionTokens tokens generated
 */
public record Usage(long promptTokens, long cachedTokens, long completionTokens) {

    /** Token counts read from the upstream response, when it reported them (written by the relaying steps). */
    public static final ExchangeProperty<Usage> PROPERTY = ExchangeProperty.of("caravanUsage", Usage.class);

    public static final Usage NONE = new Usage(-1, -1, -1);

    public boolean hasPromptTokens() {
        return promptTokens >= 0;
    }

    /**
     * One request's counts from two engines (P/D): the prompt and its cached part from {@code prompt}'s engine (the
     * other's when it reported none), the output from {@code output}'s engine only: a prefill engine's own output count
     * (vLLM's prefill runs with {@code max_tokens} 1) is not the answer's.
     */
    public static Usage promptAndOutput(Usage prompt, Usage output) {
        Usage p = prompt != null && prompt.hasPromptTokens() ? prompt : output;
        return new Usage(p.promptTokens, p.cachedTokens, output.completionTokens);
    }

    /** Adds two reports field by field (a batch response reports one per element); unknown stays unknown. */
    Usage plus(Usage o) {
        return new Usage(add(promptTokens, o.promptTokens), add(cachedTokens, o.cachedTokens),
                add(completionTokens, o.completionTokens));
    }

    private static long add(long a, long b) {
        if (a < 0) {
            return b;
        }
        return b < 0 ? a : a + b;
    }
}
